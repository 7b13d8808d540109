import Foundation
import HearthAccounts
import HearthChat
import HearthCore
import HearthDatabase
import HearthFunctions
import HearthRules
import HearthServer
import HearthTestSupport
import Testing

/// The crash repair of the chat app's file deletions: a deletion committed with its database
/// change but not carried out before the process died is carried out at the next start. Made
/// deterministic by committing the changes (the real callables and account-deletion handler,
/// given no files: the deletions they would do at once never happen, as when the process dies
/// right after the commit) through the store of a stopped server's data directory; then a
/// server starts on it.
@Suite(.timeLimit(.minutes(3))) struct ChatFilesRepairTests {
    /// A server configuration over `directory` with the chat callables in `default`.
    static func configuration(_ directory: URL) -> HearthServerConfiguration {
        var configuration = HearthServerConfiguration.testing(in: directory)
        configuration.accounts = AccountsConfiguration(scrypt: .testing, hashingThreads: 2)
        try? ChatApp.register(in: &configuration.callables, namespaces: ["default"])
        return configuration
    }

    @Test func deletionsCommittedBeforeADeathAreCarriedOutAtTheNextStart() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-files-repair")
        defer { temporary.remove() }
        let directory = temporary.url
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("rules"),
            withIntermediateDirectories: true
        )
        let configuration = Self.configuration(directory)

        // 1. A running server: users, two groups, files, a message with an attachment.
        let (first, server) = try await TestServer.start(configuration, in: directory)
        let client = AccountsClient(server: server)
        var users: [String: (uid: String, token: String)] = [:]
        for name in ["Alice", "Bob", "Carol"] {
            let answer = try await client.signUp("\(name.lowercased())@example.com")
            users[name] = (answer.string("localId"), answer.string("idToken"))
            try await server.put("/users/\(answer.string("localId"))", #"{"displayName":"\#(name)","createdAt":1}"#)
        }
        let chat = ChatServer(accounts: client, users: users)
        let (alice, carol) = (chat.uid("Alice"), chat.uid("Carol"))
        let (group, other) = (try await chat.group(), try await chat.group("Climbers"))
        let photo = try await server.upload("chats/\(group)/photo.png")
        let message = try await chat.deliver(from: "Alice", in: group, to: ["Bob", "Carol"])
        try await server.put("/messages/\(group)/\(message)/attachmentUrl", "\"\(photo)\"")
        let names = [
            "chats/\(group)/photo.png", "chats/\(other)/a.png", "chats/\(other)/sub/b.png", "users/\(carol)/avatar.png",
        ]
        let kept = ["chats/\(group)/kept.png", "users/\(alice)/avatar.png"]
        for name in names.dropFirst() + kept { _ = try await server.upload(name) }
        await first.shutdown()

        // 2. The server is down: the changes commit with their deletions, which nobody does.
        try await Self.commitWithoutDeleting(configuration, directory: directory) { database in
            let asAlice = Caller.user(RuleAuth(uid: alice))
            _ = try await Self.call(
                DeleteMessage(),
                #"{"chatId":"\#(group)","messageId":"\#(message)"}"#,
                as: asAlice,
                database
            )
            _ = try await Self.call(DeleteChat(), #"{"chatId":"\#(other)","forEveryone":true}"#, as: asAlice, database)
            for (handler, _) in configuration.callables.accountDeletionHandlers {
                try await handler.accountWillBeDeleted(uid: carol, in: database.callable, files: nil)
            }
            #expect(try database.database.jobCount(in: FileDeletion.queue, limit: 100) == 3)
        }

        // 3. The next start carries them out and empties the queue; nothing else goes.
        let (second, restarted) = try await TestServer.start(configuration, in: directory)
        do {
            try await ChatFilesTests.expectNoPendingDeletion(restarted)
            for name in names { #expect(try await !restarted.objectExists(name), "\(name) left behind") }
            for name in kept { #expect(try await restarted.objectExists(name), "\(name) deleted") }
            #expect(try await restarted.get("/messages/\(group)/\(message)") == "null")
        } catch {
            await second.shutdown()
            throw error
        }
        await second.shutdown()
    }

    /// The database of a stopped server's data directory, as a callable sees it.
    struct StoppedDatabase {
        let database: Database
        let callable: CallableDatabase
        let accounts: AccountsStore
    }

    /// Opens the store of `configuration`'s data directory (the server is down) and runs `body`.
    static func commitWithoutDeleting(
        _ configuration: HearthServerConfiguration,
        directory: URL,
        _ body: (StoppedDatabase) async throws -> Void
    ) async throws {
        let database = try await Database.open(
            DatabaseConfiguration(dataDirectory: configuration.dataDirectory, rulesFile: configuration.rulesFile),
            logger: TestServer.logger
        )
        defer { database.close() }
        // The callables want an accounts store; none of these reads it.
        let accountsDirectory = directory.appendingPathComponent("stand-in-accounts")
        let accounts = try AccountsStore(
            directory: accountsDirectory.path,
            jwtSecret: TestServer.jwtSecret,
            configuration: AccountsConfiguration(scrypt: .testing, hashingThreads: 1),
            logger: TestServer.logger
        )
        defer { accounts.close() }
        let engine = try await database.engine(for: "default")
        try await body(
            StoppedDatabase(
                database: database,
                callable: CallableDatabase(namespace: "default", engine: engine),
                accounts: accounts
            )
        )
    }

    /// Calls `callable` with `data` as `caller`, without files.
    static func call(
        _ callable: some Callable,
        _ data: String,
        as caller: Caller,
        _ database: StoppedDatabase
    ) async throws -> JSONValue {
        try await callable.call(
            CallRequest(
                data: try JSONParser.parse(data),
                caller: caller,
                database: database.callable,
                accounts: database.accounts,
                files: nil
            )
        )
    }
}
