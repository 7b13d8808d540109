import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

enum Scenario: String, CaseIterable, ExpressibleByArgument {
    case puts, read50mb, ordered, `import`, all
    case wsPuts = "ws-puts", wsFanout = "ws-fanout", wsLatency = "ws-latency", wsIdleMemory = "ws-idle-memory"
    case realtime
    case rules
    case signIn = "sign-in"
    case json
    case rulesReload = "rules-reload"
    case fanoutWrite = "fanout-write"
    case chatMessages = "chat-messages"
    case contacts
    case chatUnreadLatency = "chat-unread-latency"
}

/// Benchmarks a running Hearth server over loopback HTTP/1.1 keep-alive and prints one JSON object.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-bench",
        abstract: "Benchmark a running Hearth server over loopback HTTP/1.1 and print one JSON object.",
        discussion: """
            Scenarios: puts (acked small PUTs/s with 1 and 64 clients), read50mb (GET of a ~50 MB subtree),
            ordered (orderBy="score"&limitToLast=50 over 1,000,000 indexed children), import (`hearth import`
            of a generated file; needs --hearth-binary, not a server). `all` runs the first three, and import
            when --hearth-binary is given. WebSocket (Firebase v5 protocol) scenarios: ws-puts, ws-fanout,
            ws-latency, ws-idle-memory (needs --server-pid); `realtime` runs the first three, and ws-idle-memory
            when --server-pid is given. fanout-write: a chat message with its members' counters as one
            multi-path update (REST PATCH and WebSocket `m`), messages/s. chat-messages: messages alone
            into a group whose counters the server's chat app derives (run it in --ns: --chat-ns).
            chat-unread-latency: message written → the other members' unread update on their WebSockets,
            paced at --rate over --groups groups (--chat-ns too). rules (no server): µs per evaluation of the shipped security rules
            (--rules-file). sign-in: accounts:signInWithPassword per second with --sign-in-clients clients.
            json (no server): MB/s of the JSON parsers and renderer on a generated document (--json-mb).
            rules-reload: ms until an edit of the server's rules file takes effect (--rules-reload-file).
            contacts: matchContacts and searchUsers over --contacts-profiles users (run it in --ns: --chat-ns).
            Progress goes to stderr; the JSON report to stdout.
            """
    )

    @Option(help: "The server's base URL (plain HTTP).")
    var url = "http://127.0.0.1:9000"

    @Option(help: "The admin secret, sent as ?auth=S (default: $HEARTH_ADMIN_SECRET).")
    var adminSecret: String?

    @Option(help: "The namespace to use, sent as ?ns=NAME.")
    var ns = "bench"

    @Option(
        help: """
            Scenarios to run, comma-separated: puts, read50mb, ordered, import, all, \
            ws-puts, ws-fanout, ws-latency, ws-idle-memory, realtime, rules, sign-in, json, rules-reload, \
            fanout-write, chat-messages, contacts, chat-unread-latency.
            """
    )
    var scenario = "all"

    @Option(help: "The server's --sync mode, for the report and the puts target: periodic (default) or always.")
    var serverSync = "periodic"

    @Option(help: "Client event-loop threads (the machine is shared with the server).")
    var threads = 1

    // puts
    @Option(help: "puts: seconds measured per phase.")
    var duration = 5.0

    @Option(help: "puts: seconds of unmeasured warm-up per phase.")
    var warmup = 1.0

    @Option(help: "puts: concurrent keep-alive clients per phase, comma-separated.")
    var clients = "1,64"

    @Flag(help: "puts: add print=silent (204, no echoed body).")
    var silent = false

    @Flag(help: "Skip the health check: for a WebSocket scenario against an anchor (../shared/anchors/nio-ws).")
    var noHealthCheck = false

    // read50mb
    @Option(help: "read50mb: size of /bench/big in MB (10^6 bytes).")
    var bigMb = 50

    @Option(help: "read50mb: number of PUTs (children of /bench/big) the subtree is loaded with.")
    var bigParts = 5

    @Option(help: "read50mb: timed GETs (after one warm-up GET).")
    var reads = 5

    // ordered
    @Option(help: "ordered: children of /bench/list.")
    var listSize = 1_000_000

    @Option(help: "ordered: children per PATCH.")
    var batch = 20_000

    @Option(help: "ordered: limitToLast.")
    var limit = 50

    @Option(help: "ordered: timed queries (after two warm-up queries).")
    var queries = 20

    @Flag(help: "read50mb/ordered: reuse /bench/big and /bench/list from an earlier run instead of reloading.")
    var skipFill = false

    // import
    @Option(help: "import: path of the built `hearth` executable (e.g. .build/release/hearth).")
    var hearthBinary: String?

    @Option(help: "import: size of the generated JSON file in MB (10^6 bytes).")
    var importMb = 200

    @Option(help: "import: directory for the generated file and data (default: the temp directory).")
    var importDir: String?

    @Flag(help: "import: keep the generated file and data directory.")
    var keepFiles = false

    @Option(help: "rules: the rules file evaluated (from the repository root).")
    var rulesFile = "rules/database.rules.json"

    @Option(help: "rules: decisions per timed loop (lower it to profile under valgrind).")
    var rulesIterations = 200_000

    @Option(help: "rules: timed loops per decision (the best is reported).")
    var rulesRuns = 5

    @Option(help: "json: size of the generated document in MB (10^6 bytes).")
    var jsonMb = 50

    @Option(help: "json: timed runs per stage (the best is reported).")
    var jsonRuns = 3

    @Option(help: "rules-reload: the running server's rules file of --ns (<ns>.rules.json beside its --rules).")
    var rulesReloadFile: String?

    @Option(help: "rules-reload: edits timed (each adds or removes an index).")
    var rulesReloadRuns = 20

    @Option(help: "sign-in: concurrent clients, each signing in its own account.")
    var signInClients = 16

    @OptionGroup(
        title: "fanout-write and chat-messages (--duration, --warmup, --server-pid apply too; --silent to fanout-write)"
    )
    var fanoutWriteOptions: FanoutWriteOptions

    @OptionGroup(title: "contacts (--server-pid applies too)")
    var contactsOptions: ContactsOptions

    @OptionGroup(title: "chat-unread-latency (--duration, --warmup, --threads, --server-pid apply too)")
    var chatUnreadOptions: ChatUnreadOptions

    @OptionGroup(title: "WebSocket scenarios (--duration, --warmup and --threads apply too)")
    var realtimeOptions: RealtimeOptions

    func validate() throws {
        guard ["periodic", "always"].contains(serverSync) else {
            throw ValidationError("--server-sync must be 'periodic' or 'always', not '\(serverSync)'")
        }
        guard (try? scenarios()) != nil else {
            throw ValidationError(
                "--scenario must list puts, read50mb, ordered, import, all or ws-* scenarios, not '\(scenario)'"
            )
        }
        guard let counts = try? clientCounts(), !counts.isEmpty else {
            throw ValidationError("--clients must be positive integers separated by commas, not '\(clients)'")
        }
        guard duration > 0, warmup >= 0, threads >= 1, bigMb >= 1, bigParts >= 1, reads >= 1, listSize >= limit,
            batch >= 1, limit >= 1, queries >= 1, importMb >= 1, rulesIterations >= 1, rulesRuns >= 1,
            jsonMb >= 1, jsonRuns >= 1, rulesReloadRuns >= 1
        else {
            throw ValidationError("durations, counts and sizes must be positive")
        }
    }

    func run() async throws {
        let selected = try scenarios()
        let secret = adminSecret ?? ProcessInfo.processInfo.environment["HEARTH_ADMIN_SECRET"]
        let target = try ServerTarget(url: url, namespace: ns, adminSecret: secret)
        var report = Report(url: url, namespace: ns, serverSync: serverSync, clientThreads: threads)
        let needsServer = !selected.subtracting([.import, .rules, .json]).isEmpty
        let rulesReport =
            selected.contains(.rules)
            ? try RulesScenario(rulesFile: rulesFile, iterations: rulesIterations, runs: rulesRuns).run() : nil
        let jsonReport = selected.contains(.json) ? try JSONScenario(megabytes: jsonMb, runs: jsonRuns).run() : nil

        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        var realtimeReports = RealtimeReports()
        var signInReport: SignInReport?
        var rulesReloadReport: RulesReloadReport?
        var fanoutWriteReport: FanoutWriteReport?
        var chatMessagesReport: ChatMessagesReport?
        var contactsReport: ContactsReport?
        var chatUnreadReport: ChatUnreadLatencyReport?
        do {
            if needsServer && !noHealthCheck { try await checkHealth(target, group) }
            if selected.contains(.puts) {
                report.puts = try await PutsScenario(
                    target: target,
                    group: group,
                    clientCounts: try clientCounts(),
                    seconds: duration,
                    warmupSeconds: warmup,
                    silent: silent,
                    targetOpsPerS: serverSync == "always" ? 3_000 : 20_000
                ).run()
            }
            if selected.contains(.read50mb) {
                report.read50mb = try await ReadScenario(
                    target: target,
                    group: group,
                    megabytes: bigMb,
                    parts: bigParts,
                    runs: reads,
                    skipLoad: skipFill,
                    targetSeconds: 1.0
                ).run()
            }
            if selected.contains(.ordered) {
                report.ordered = try await OrderedScenario(
                    target: target,
                    group: group,
                    children: listSize,
                    batchSize: batch,
                    limit: limit,
                    runs: queries,
                    skipFill: skipFill,
                    targetMs: 10
                ).run()
            }
            if selected.contains(.import) {
                guard let hearthBinary else {
                    throw ValidationError("--scenario import needs --hearth-binary PATH")
                }
                report.import = try ImportScenario(
                    hearthBinary: hearthBinary,
                    megabytes: importMb,
                    namespace: nil,
                    workDirectory: importDir,
                    keepFiles: keepFiles,
                    targetMBPerS: 30
                ).run()
            }
            if selected.contains(.rulesReload) {
                guard let rulesReloadFile else {
                    throw ValidationError("--scenario rules-reload needs --rules-reload-file PATH")
                }
                rulesReloadReport = try await RulesReloadScenario(
                    target: target,
                    group: group,
                    rulesFile: rulesReloadFile,
                    runs: rulesReloadRuns,
                    targetMs: 1000
                ).run()
            }
            if selected.contains(.signIn) {
                signInReport = try await SignInScenario(
                    target: target,
                    group: group,
                    clients: signInClients,
                    seconds: duration,
                    warmupSeconds: warmup
                ).run()
            }
            if selected.contains(.fanoutWrite) {
                fanoutWriteReport = try await FanoutWriteScenario(
                    target: target,
                    group: group,
                    options: fanoutWriteOptions,
                    seconds: duration,
                    warmupSeconds: warmup,
                    silent: silent,
                    serverPid: realtimeOptions.serverPid
                ).run()
            }
            if selected.contains(.chatMessages) {
                chatMessagesReport = try await ChatMessagesScenario(
                    target: target,
                    group: group,
                    options: fanoutWriteOptions,
                    seconds: duration,
                    warmupSeconds: warmup,
                    serverPid: realtimeOptions.serverPid
                ).run()
            }
            if selected.contains(.contacts) {
                contactsReport = try await ContactsScenario(
                    target: target,
                    group: group,
                    options: contactsOptions,
                    serverPid: realtimeOptions.serverPid
                ).run()
            }
            if selected.contains(.chatUnreadLatency) {
                chatUnreadReport = try await ChatUnreadLatencyScenario(
                    target: target,
                    group: group,
                    options: chatUnreadOptions,
                    seconds: duration,
                    warmupSeconds: warmup,
                    serverPid: realtimeOptions.serverPid
                ).run()
            }
            realtimeReports = try await RealtimeBench(
                target: target,
                group: group,
                options: realtimeOptions,
                seconds: duration,
                warmupSeconds: warmup
            ).run(selected)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()

        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let fanoutOutput = BenchOutputWithFanoutWrite(
            output: BenchOutputWithRulesReload(
                output: BenchOutputWithJSON(
                    output: BenchOutputWithSignIn(
                        output: BenchOutputWithRules(
                            output: BenchOutput(report: report, realtime: realtimeReports),
                            rules: rulesReport
                        ),
                        signIn: signInReport
                    ),
                    json: jsonReport
                ),
                rulesReload: rulesReloadReport
            ),
            fanoutWrite: fanoutWriteReport
        )
        let output = BenchOutputWithEntries(
            output: BenchOutputWithChatMessages(output: fanoutOutput, chatMessages: chatMessagesReport),
            entries: [("contacts", contactsReport), ("chat_unread_latency", chatUnreadReport)]
        )
        FileHandle.standardOutput.write(try encoder.encode(output) + Data("\n".utf8))
    }

    private func scenarios() throws -> Set<Scenario> {
        var set = Set<Scenario>()
        for name in scenario.split(separator: ",") {
            guard let s = Scenario(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("unknown scenario '\(name)'")
            }
            if s == .all {
                set.formUnion([.puts, .read50mb, .ordered])
                if hearthBinary != nil { set.insert(.import) }
            } else if s == .realtime {
                set.formUnion([.wsPuts, .wsFanout, .wsLatency])
                if realtimeOptions.serverPid != nil { set.insert(.wsIdleMemory) }
            } else {
                set.insert(s)
            }
        }
        guard !set.isEmpty else { throw ValidationError("no scenario") }
        return set
    }

    private func clientCounts() throws -> [Int] {
        try clients.split(separator: ",").map {
            guard let n = Int($0.trimmingCharacters(in: .whitespaces)), n >= 1 else {
                throw ValidationError("bad client count '\($0)'")
            }
            return n
        }
    }

    private func checkHealth(_ target: ServerTarget, _ group: EventLoopGroup) async throws {
        let response: HTTPResponse
        do {
            response = try await withConnection(to: target, on: group.next()) { connection in
                var request = connection.allocator.buffer(capacity: 128)
                request.writeString(
                    "GET /.well-known/hearth/health HTTP/1.1\r\nHost: \(target.hostHeader)\r\n\r\n"
                )
                return try await connection.send(request).get()
            }
        } catch {
            throw BenchError("no Hearth server at \(url): \(error)")
        }
        try response.expectSuccess("GET /.well-known/hearth/health")
    }
}

/// A progress line on stderr (stdout carries only the JSON report).
func progress(_ message: String) {
    FileHandle.standardError.write(Data("hearth-bench: \(message)\n".utf8))
}
