import Foundation
import HearthRules
import HearthStore
import HearthTestSupport
import Logging
import Synchronization
import Testing

@testable import HearthDatabase
@testable import HearthServer

/// Rules files loaded per namespace, compiled, reloaded when they change on disk; an invalid
/// edit is logged and ignored. The registry tests call `poll()` themselves (no timing); the
/// server tests rely on the watcher.
struct RulesReloadTests {
    static let plain = #"{"rules": {"items": {".read": "auth != null"}}}"#
    static let indexed = """
        {
          // ordered by n
          "rules": {"items": {".indexOn": "n", ".read": "auth != null"}}
        }
        """
    static let invalid = """
        {
          "rules": {
            ".read": "auht != null"
          }
        }
        """

    // MARK: The registry

    @Test func firstUseCompilesTheFileAppliesItsIndexesAndIsObservedOnce() async throws {
        try await RegistryFixture.with { fixture in
            try fixture.write(Self.indexed)
            #expect(fixture.registry.loadedProgram(for: "default") == nil)
            let program = try await fixture.registry.program(for: "default")
            #expect(program.source.text == Self.indexed)
            #expect(program.indexes.count == 1)
            #expect(fixture.registry.loadedProgram(for: "default")?.source.text == Self.indexed)
            #expect(try await fixture.registry.document(for: "default") == Self.indexed)
            _ = try await fixture.registry.program(for: "default")
            #expect(fixture.installs() == [Install("default", Self.indexed)])
            #expect(try fixture.indexCount() == 1)
        }
    }

    @Test func aNamespaceWithoutAFileGetsTheDefaultRules() async throws {
        try await RegistryFixture.with { fixture in
            let program = try await fixture.registry.program(for: "shop")
            #expect(program.source.text == RulesFiles.defaultDocument)
            #expect(fixture.installs() == [Install("shop", RulesFiles.defaultDocument)])
        }
    }

    @Test func anEditIsInstalledOnceAndObserved() async throws {
        try await RegistryFixture.with { fixture in
            try fixture.write(Self.plain)
            _ = try await fixture.registry.program(for: "default")
            #expect(try fixture.indexCount() == 0)
            try fixture.write(Self.indexed)
            await fixture.registry.poll()
            await fixture.registry.poll()
            #expect(fixture.registry.loadedProgram(for: "default")?.source.text == Self.indexed)
            #expect(fixture.installs() == [Install("default", Self.plain), Install("default", Self.indexed)])
            #expect(try fixture.indexCount() == 1)
        }
    }

    @Test func anUnchangedFileIsNotReloaded() async throws {
        try await RegistryFixture.with { fixture in
            try fixture.write(Self.plain)
            _ = try await fixture.registry.program(for: "default")
            // Rewritten with the same text (new inode and times): read again, but not installed.
            try fixture.write(Self.plain, atomically: true)
            for _ in 0..<3 { await fixture.registry.poll() }
            #expect(fixture.installs().count == 1)
        }
    }

    @Test func anInvalidEditIsLoggedOnceAndIgnored() async throws {
        try await RegistryFixture.with { fixture in
            try fixture.write(Self.plain)
            _ = try await fixture.registry.program(for: "default")
            try fixture.write(Self.invalid)
            for _ in 0..<3 { await fixture.registry.poll() }
            #expect(fixture.registry.loadedProgram(for: "default")?.source.text == Self.plain)
            #expect(fixture.installs().count == 1)
            let refusals = fixture.logs.records().filter { $0.message.hasPrefix("rules file has errors") }
            #expect(refusals.count == 1)
            let path = fixture.files.path(for: "default")
            #expect(refusals.first?.level == .error)
            #expect(refusals.first?.metadata["hearth.ns"] == "default")
            #expect(refusals.first?.metadata["hearth.rules.file"] == path)
            #expect(
                refusals.first?.metadata["hearth.rules.diagnostics"]
                    == "\(path):3:15: unknown variable 'auht'; did you mean 'auth'?\\n |     \".read\": \"auht != null\""
                    + "\\n | ..............^"
            )
            // Fixing the file installs it.
            try fixture.write(Self.indexed)
            await fixture.registry.poll()
            #expect(fixture.installs().map(\.text) == [Self.plain, Self.indexed])
        }
    }

    @Test func anInvalidFileAtFirstUseIsLoggedAndGivesTheDefaultRules() async throws {
        try await RegistryFixture.with { fixture in
            try fixture.write(Self.invalid, namespace: "shop")
            let program = try await fixture.registry.program(for: "shop")
            #expect(program.source.text == RulesFiles.defaultDocument)
            let refusals = fixture.logs.records().filter { $0.message.hasPrefix("rules file has errors") }
            #expect(refusals.count == 1)
            #expect(refusals.first?.metadata["hearth.ns"] == "shop")
            await fixture.registry.poll()
            #expect(fixture.logs.records().filter { $0.message.hasPrefix("rules file has errors") }.count == 1)
            try fixture.write(Self.plain, namespace: "shop")
            await fixture.registry.poll()
            #expect(fixture.registry.loadedProgram(for: "shop")?.source.text == Self.plain)
        }
    }

    @Test func anInvalidDefaultFileStopsTheStart() async throws {
        try await RegistryFixture.with { fixture in
            try fixture.write(Self.invalid)
            try fixture.write(Self.invalid, namespace: "shop")
            let path = fixture.files.path(for: "default")
            let error = await #expect(throws: HearthServerError.self) {
                try await fixture.registry.loadAtStart(["default", "shop"])
            }
            #expect(
                error?.message == """
                    The rules file '\(path)' has errors:
                    \(path):3:15: unknown variable 'auht'; did you mean 'auth'?
                     |     ".read": "auht != null"
                     | ..............^
                    """
            )
            #expect(fixture.installs().isEmpty)
            // Another namespace's bad file does not stop the start.
            try fixture.write(Self.plain)
            try await fixture.registry.loadAtStart(["default", "shop"])
            #expect(fixture.installs().map(\.namespace) == ["default", "shop"])
        }
    }

    @Test func aFileThatAppearsReplacesTheDefaultRules() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.registry.program(for: "shop")
            await fixture.registry.poll()
            try fixture.write(Self.plain, namespace: "shop")
            await fixture.registry.poll()
            #expect(fixture.installs().map(\.text) == [RulesFiles.defaultDocument, Self.plain])
        }
    }

    @Test func aDeletedFileKeepsTheRulesInForce() async throws {
        try await RegistryFixture.with { fixture in
            try fixture.write(Self.plain)
            _ = try await fixture.registry.program(for: "default")
            try FileManager.default.removeItem(atPath: fixture.files.path(for: "default"))
            for _ in 0..<3 { await fixture.registry.poll() }
            #expect(fixture.registry.loadedProgram(for: "default")?.source.text == Self.plain)
            #expect(fixture.logs.records().filter { $0.message.hasPrefix("rules file deleted") }.count == 1)
            try fixture.write(Self.indexed)
            await fixture.registry.poll()
            #expect(fixture.installs().map(\.text) == [Self.plain, Self.indexed])
        }
    }

    @Test func aSameSizeEditRightAfterAReadIsSeen() async throws {
        // Written in place within the file system's timestamp granularity: same inode, same
        // size, possibly the same times. The registry compares the text while the stamp is recent.
        try await RegistryFixture.with { fixture in
            let first = #"{"rules": {".read": "auth.uid == 'aaaa'"}}"#
            let second = #"{"rules": {".read": "auth.uid == 'bbbb'"}}"#
            try fixture.write(first)
            _ = try await fixture.registry.program(for: "default")
            try fixture.write(second)
            await fixture.registry.poll()
            #expect(fixture.registry.loadedProgram(for: "default")?.source.text == second)
        }
    }

    @Test func replaceRewritesTheFileInstallsOnceAndIsNotReloadedAgain() async throws {
        try await RegistryFixture.with { fixture in
            try fixture.write(Self.plain)
            _ = try await fixture.registry.program(for: "default")
            try await fixture.registry.replace(Self.indexed, for: "default")
            #expect(try fixture.read() == Self.indexed)
            for _ in 0..<3 { await fixture.registry.poll() }
            #expect(fixture.installs().map(\.text) == [Self.plain, Self.indexed])
            #expect(try fixture.indexCount() == 1)
            // The same text again: the file is rewritten, nothing new is installed.
            try await fixture.registry.replace(Self.indexed, for: "default")
            await fixture.registry.poll()
            #expect(fixture.installs().count == 2)
        }
    }

    @Test func replaceRefusesADocumentWithErrorsAndKeepsTheRules() async throws {
        try await RegistryFixture.with { fixture in
            try fixture.write(Self.plain)
            _ = try await fixture.registry.program(for: "default")
            let error = await #expect(throws: RESTError.self) {
                try await fixture.registry.replace(Self.invalid, for: "default")
            }
            #expect(error?.status.code == 400)
            #expect(error?.message.hasPrefix("\(fixture.files.path(for: "default")):3:15: unknown variable") == true)
            #expect(try fixture.read() == Self.plain)
            #expect(fixture.registry.loadedProgram(for: "default")?.source.text == Self.plain)
            #expect(fixture.installs().count == 1)
        }
    }

    @Test func concurrentFirstUsesLoadOnce() async throws {
        try await RegistryFixture.with { fixture in
            try fixture.write(Self.indexed, namespace: "shop")
            let registry = fixture.registry
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 { group.addTask { _ = try await registry.program(for: "shop") } }
                try await group.waitForAll()
            }
            #expect(fixture.installs() == [Install("shop", Self.indexed)])
        }
    }

    // MARK: The server

    @Test func editingTheFileTakesEffectWhileServing() async throws {
        try await TestServer.with(
            prepare: { _, directory in
                try Self.plain.write(
                    to: directory.appendingPathComponent("rules/database.rules.json"),
                    atomically: true,
                    encoding: .utf8
                )
            },
            run: { server in
                let admin = "auth=\(TestServer.adminSecret)"
                try await server.put("/items", #"{"x":{"n":2},"y":{"n":1}}"#)
                let before = try await server.send("GET", "/items.json?orderBy=%22n%22&\(admin)")
                #expect(before.status == 400)
                #expect(before.body.contains("Index not defined"))

                try Self.indexed.write(
                    to: server.directory.appendingPathComponent("rules/database.rules.json"),
                    atomically: false,
                    encoding: .utf8
                )
                // How soon an edit takes effect is a matter for a benchmark, not for this test
                // (the watcher polls every 250 ms; a busy machine stretches that): it waits for
                // the effect, with a generous bound.
                // A document's indexes are built before the document is in force: once it is,
                // they answer.
                let document = try await eventually(timeout: .seconds(10)) {
                    try await server.send("GET", "/.settings/rules.json?\(admin)")
                } until: {
                    $0.body == Self.indexed
                }
                #expect(document.body == Self.indexed)
                let ordered = try await server.send("GET", "/items.json?orderBy=%22n%22&limitToFirst=1&\(admin)")
                #expect(ordered.status == 200)
                #expect(JSONCompare.equal(ordered.body, #"{"y":{"n":1}}"#))
            }
        )
    }

    @Test func aRulesFileCreatedForALoadedNamespaceIsPickedUp() async throws {
        try await TestServer.with { server in
            let admin = "auth=\(TestServer.adminSecret)"
            let before = try await server.send("GET", "/.settings/rules.json?ns=shop&\(admin)")
            #expect(before.body == RulesFiles.defaultDocument)
            try Self.indexed.write(
                to: server.directory.appendingPathComponent("rules/shop.rules.json"),
                atomically: true,
                encoding: .utf8
            )
            let after = try await eventually(timeout: .seconds(10)) {
                try await server.send("GET", "/.settings/rules.json?ns=shop&\(admin)").body
            } until: {
                $0 == Self.indexed
            }
            #expect(after == Self.indexed)
        }
    }

    @Test func anInvalidEditIsLoggedAndIgnoredWhileServing() async throws {
        let logs = LogCapture()
        try await LoggedServer.with(logs: logs, rules: Self.plain) { server in
            let admin = "auth=\(TestServer.adminSecret)"
            try Self.invalid.write(to: server.rulesFile, atomically: false, encoding: .utf8)
            let logged = try await eventually(timeout: .seconds(10)) {
                logs.records().filter { $0.message.hasPrefix("rules file has errors") }.count
            } until: {
                $0 > 0
            }
            #expect(logged == 1)
            let document = try await server.server.send("GET", "/.settings/rules.json?\(admin)")
            #expect(document.body == Self.plain)
            let diagnostics = logs.records().first { $0.message.hasPrefix("rules file has errors") }?
                .metadata["hearth.rules.diagnostics"]
            #expect(diagnostics?.hasPrefix("\(server.rulesFile.path):3:15: unknown variable 'auht'") == true)
            #expect(diagnostics?.contains("\n") == false, "one log line")

            // The watcher is still alive: a valid edit is installed.
            try Self.indexed.write(to: server.rulesFile, atomically: false, encoding: .utf8)
            let reloaded = try await eventually(timeout: .seconds(10)) {
                try await server.server.send("GET", "/.settings/rules.json?\(admin)").body
            } until: {
                $0 == Self.indexed
            }
            #expect(reloaded == Self.indexed)
            #expect(logs.records().filter { $0.message.hasPrefix("rules file has errors") }.count == 1)
        }
    }

    @Test func theServerRefusesToStartWithAnInvalidRulesFile() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-rules-start")
        defer { temporary.remove() }
        let directory = temporary.url
        let rulesFile = directory.appendingPathComponent("database.rules.json")
        try Self.invalid.write(to: rulesFile, atomically: true, encoding: .utf8)
        let configuration = HearthServerConfiguration(
            host: "127.0.0.1",
            port: 0,
            dataDirectory: directory.appendingPathComponent("data").path,
            rulesFile: rulesFile.path,
            seedFile: nil,
            adminSecret: TestServer.adminSecret
        )
        var logger = Logger(label: "hearth.test")
        logger.logLevel = .critical
        let error = await #expect(throws: HearthServerError.self) {
            let running = try await HearthServer.start(configuration: configuration, logger: logger)
            await running.shutdown()
        }
        #expect(
            error?.message.contains("\(rulesFile.path):3:15: unknown variable 'auht'; did you mean 'auth'?") == true
        )
        #expect(error?.message.contains(" | ..............^") == true)

        // The store was closed: fixed, the server starts on the same data directory.
        try Self.plain.write(to: rulesFile, atomically: true, encoding: .utf8)
        let running = try await HearthServer.start(configuration: configuration, logger: logger)
        await running.shutdown()
    }
}

/// One observed install.
struct Install: Equatable, CustomStringConvertible {
    var namespace: String
    var text: String
    init(_ namespace: String, _ text: String) {
        self.namespace = namespace
        self.text = text
    }
    var description: String { "\(namespace): \(text)" }
}

/// The rules of a `Database` as the server drives them (`RulesCatalog`; a refused `PUT` and a
/// refused start through the server's error conversions).
struct RulesDriver {
    let database: Database

    func loadedProgram(for namespace: String) -> RuleProgram? { database.rules.loadedProgram(for: namespace) }
    func program(for namespace: String) async throws -> RuleProgram { try await database.rules.program(for: namespace) }
    func document(for namespace: String) async throws -> String { try await database.rules.document(for: namespace) }
    func poll() async { await database.rules.poll() }

    func replace(_ text: String, for namespace: String) async throws {
        try await RESTService.replaceRules(text, for: namespace, in: database)
    }

    func loadAtStart(_ namespaces: [String]) async throws {
        try await DatabaseBootstrap.startingRules { try await database.rules.loadAtStart(namespaces) }
    }
}

/// A database's rules over a temporary store and rules directory, with installs and logs recorded.
struct RegistryFixture {
    let directory: URL
    let files: RulesFiles
    let store: Store
    let registry: RulesDriver
    let logs: LogCapture
    let observed: Observed

    final class Observed: Sendable {
        let installs = Mutex<[Install]>([])
    }

    static func with(_ body: (RegistryFixture) async throws -> Void) async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-rules-registry")
        defer { temporary.remove() }
        let directory = temporary.url
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("rules"),
            withIntermediateDirectories: true
        )
        let store = try Store.open(directory: directory.appendingPathComponent("data").path)
        defer { store.close() }
        let logs = LogCapture()
        let files = RulesFiles(defaultRulesFile: directory.appendingPathComponent("rules/database.rules.json").path)
        let database = Database(store: store, rulesFiles: files, logger: logs.logger)
        let registry = RulesDriver(database: database)
        let observed = Observed()
        database.rules.observe { namespace, program in
            observed.installs.withLock { $0.append(Install(namespace, program.source.text)) }
        }
        try await body(
            RegistryFixture(
                directory: directory,
                files: files,
                store: store,
                registry: registry,
                logs: logs,
                observed: observed
            )
        )
    }

    func installs() -> [Install] { observed.installs.withLock { $0 } }

    /// Writes a rules file in place (same inode), or atomically (a new file renamed over it).
    func write(_ text: String, namespace: String = "default", atomically: Bool = false) throws {
        try text.write(toFile: files.path(for: namespace), atomically: atomically, encoding: .utf8)
    }

    func read(namespace: String = "default") throws -> String {
        try String(contentsOfFile: files.path(for: namespace), encoding: .utf8)
    }

    /// How many indexes the store keeps for `default`.
    func indexCount() throws -> Int { try store.namespace("default").indexes.count }
}

/// Records log events.
final class LogCapture: Sendable {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let recorded = Mutex<[Record]>([])

    var logger: Logger {
        var logger = Logger(label: "hearth.test") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    func records() -> [Record] { recorded.withLock { $0 } }

    fileprivate func append(_ record: Record) { recorded.withLock { $0.append(record) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append(
                Record(level: event.level, message: event.message.description, metadata: all.mapValues { "\($0)" })
            )
        }
    }
}

/// A server like `TestServer.with`, logging into a `LogCapture`.
struct LoggedServer {
    let server: TestServer
    let rulesFile: URL

    static func with(logs: LogCapture, rules: String, run body: (LoggedServer) async throws -> Void) async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-server-tests")
        defer { temporary.remove() }
        let directory = temporary.url
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("rules"),
            withIntermediateDirectories: true
        )
        let rulesFile = directory.appendingPathComponent("rules/database.rules.json")
        try rules.write(to: rulesFile, atomically: true, encoding: .utf8)
        let configuration = HearthServerConfiguration(
            host: "127.0.0.1",
            port: 0,
            dataDirectory: directory.appendingPathComponent("data").path,
            rulesFile: rulesFile.path,
            seedFile: nil,
            adminSecret: TestServer.adminSecret,
            jwtSecret: TestServer.jwtSecret
        )
        let running = try await HearthServer.start(configuration: configuration, logger: logs.logger)
        let server = LoggedServer(server: TestServer(port: running.port, directory: directory), rulesFile: rulesFile)
        do {
            try await body(server)
        } catch {
            await running.shutdown()
            throw error
        }
        await running.shutdown()
    }
}
