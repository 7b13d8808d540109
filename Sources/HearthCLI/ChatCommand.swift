import ArgumentParser
import Foundation
import HearthChat
import HearthDatabase
import HearthStore

/// `hearth chat`: the chat app's maintenance commands.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Maintain the chat app's data.",
        subcommands: [ChatCheckCommand.self]
    )
}

/// `hearth chat check`: verifies the chat app's derived state in a stopped data directory.
struct ChatCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Check the chat app's counters, chat lists, last messages, lookup and .indexOn indexes, contacts, requests, blocks and presence.",
        discussion: """
            Reads one consistent snapshot of --ns and prints each disagreement on its own line (exit 1 \
            when there is any). Opens the data directory directly: stop the server first. See \
            docs/design.md, "Checking the chat app's derived state", for what is checked.
            """
    )

    @Option(help: "Database (namespace) name.")
    var ns: String = "default"

    @Option(help: "Data directory (env HEARTH_DATA; default .hearth).")
    var data: String?

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let environment = Environment(ProcessInfo.processInfo.environment)
        let directory = DataDirectory.path(data, environment)
        _ = LoggingOptions.bootstrap(level: try logging.resolve(environment))
        // With the chat app's lookup indexes, so they are kept and checked, not dropped.
        var lookups = DatabaseTriggers()
        try ChatApp.registerLookups(in: &lookups, namespaces: [ns])
        let configuration = StoreConfiguration(triggers: lookups.registered)
        let store = try DataDirectory.open(directory, create: false, configuration: configuration)
        defer { store.close() }
        let namespace: NamespaceStore
        do {
            namespace = try store.namespace(ns)
        } catch {
            throw ValidationError("Invalid value '\(ns)' for '--ns': \(error)")
        }
        var outcome = try await namespace.read { ChatConsistencyCheck(snapshot: NamespaceSnapshot(reader: $0)).run() }
        outcome.disagreements += try await ChatConsistencyCheck.lookupDisagreements(in: namespace.name) { name in
            try await namespace.lookupDisagreement(name).map { ($0.missing, $0.extra) }
        }
        // The `.indexOn` indexes (the chat lists' among them): each entry exactly the data's.
        for disagreement in try await namespace.indexDisagreements() {
            outcome.disagreements.append(
                "the index '\(disagreement.spec)' misses \(disagreement.missing) "
                    + "and has \(disagreement.extra) extra entries"
            )
        }
        for disagreement in outcome.disagreements { print(disagreement) }
        let summary = "chat check of '\(ns)': \(outcome.chats) chats, \(outcome.users) users"
        if outcome.disagreements.isEmpty {
            print("\(summary): no disagreement")
        } else {
            print("\(summary): \(outcome.disagreements.count) disagreement(s)")
            throw ExitCode(1)
        }
    }
}
