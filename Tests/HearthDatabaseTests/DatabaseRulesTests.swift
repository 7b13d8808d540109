import Foundation
import HearthCore
import HearthProtocol
import HearthRules
import HearthStore
import Synchronization
import Testing

@testable import HearthDatabase

/// The rules in force live in one place, the database's `RulesCatalog`: the engine judges with
/// the same `NamespaceRules` the catalog loads, replaces and reloads; unknown namespaces are
/// refused to all but the admin before anything is opened.
struct DatabaseRulesTests {
    static let open = #"{"rules": {"public": {".read": true, ".write": true}}}"#
    static let closed = #"{"rules": {"public": {".read": false, ".write": false}}}"#

    static func writeRules(_ text: String, namespace: String, in db: TestDatabase) throws {
        let file = db.database.rules.files.path(for: namespace)
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        try text.write(toFile: file, atomically: true, encoding: .utf8)
    }

    @Test func aNamespaceThatExistsNowhereIsRefusedToAllButTheAdmin() async throws {
        let db = try TestDatabase()
        defer { db.destroy() }
        for caller in [Caller.anonymous, .user(RuleAuth(uid: "ada"))] {
            let error = await #expect(throws: StoreError.self) { try await db.database.open("ghost", as: caller) }
            #expect(error?.code == .permissionDenied)
        }
        #expect(!db.database.isOpen("ghost"))
        #expect(db.database.rules.loadedProgram(for: "ghost") == nil)
        // The admin opens it (with the default rules), in memory only.
        let engine = try await db.database.open("ghost", as: .admin)
        #expect(engine.rules.current?.source.text == RulesFiles.defaultDocument)
        #expect(db.database.isOpen("ghost"))
        #expect(!db.database.isCreated("ghost"))
        // A namespace with a rules file is served to everyone by its rules.
        try Self.writeRules(Self.open, namespace: "shop", in: db)
        let shop = try await db.database.open("shop", as: .anonymous)
        let read = try await shop.read(ReadRequest(path: path("public")), as: .anonymous)
        guard case .found(.json(let body), _) = read else {
            Issue.record("expected a value, got \(read)")
            return
        }
        #expect(String(decoding: body, as: UTF8.self) == "null")
    }

    @Test func theEngineJudgesWithTheProgramTheCatalogLoadsAndReplaces() async throws {
        let db = try TestDatabase()
        defer { db.destroy() }
        try Self.writeRules(Self.open, namespace: "default", in: db)
        try await db.database.loadRules()
        let engine = try await db.database.engine(for: "default")
        #expect(engine.rules === db.database.rules.rules(for: "default"))
        #expect(engine.rules.current?.source.text == Self.open)
        _ = try await engine.write(Write(.set(path("public/a"), value("1"))), as: .anonymous, returningETagAt: nil)

        try await db.database.replaceRules(Self.closed, for: "default")
        #expect(engine.rules.current?.source.text == Self.closed)
        #expect(try await db.database.rulesDocument(for: "default") == Self.closed)
        #expect(db.database.isCreated("default"))
        let error = await #expect(throws: StoreError.self) {
            try await engine.write(Write(.set(path("public/a"), value("2"))), as: .anonymous, returningETagAt: nil)
        }
        #expect(error?.code == .permissionDenied)

        // A document with errors is refused with its diagnostics; the rules in force stay.
        let refused = await #expect(throws: DatabaseError.self) {
            try await db.database.replaceRules(#"{"rules": {".read": "auht != null"}}"#, for: "default")
        }
        #expect(refused?.code == .invalidRules)
        #expect(refused?.message.contains("unknown variable 'auht'") == true)
        #expect(engine.rules.current?.source.text == Self.closed)
    }

    @Test func aRulesReplacementRevokesListensItNoLongerAllows() async throws {
        let db = try TestDatabase()
        defer { db.destroy() }
        try Self.writeRules(Self.open, namespace: "default", in: db)
        let engine = try await db.database.engine(for: "default")
        let subscriber = RevocationWaiter()
        let start = try await engine.listen(path: path("public"), query: nil, subscriber: subscriber, as: .anonymous)
        try await db.database.replaceRules(Self.closed, for: "default")
        let revoked = await subscriber.firstRevocation(within: .seconds(10))
        #expect(revoked == start.registration)
    }

    @Test func aStartWithAnInvalidDefaultFileFailsWithItsDiagnostics() async throws {
        let db = try TestDatabase()
        defer { db.destroy() }
        try Self.writeRules(#"{"rules": {".read": "auht != null"}}"#, namespace: "default", in: db)
        let error = await #expect(throws: DatabaseError.self) { try await db.database.loadRules() }
        #expect(error?.code == .invalidRules)
        #expect(error?.message.hasPrefix("The rules file '\(db.database.rules.files.path(for: "default"))'") == true)
        #expect(db.database.rules.loadedProgram(for: "default") == nil)
    }

    /// A poll skips a key whose operation is still running: once `run` returned, it must not
    /// count as running (it did, for a moment, and a poll right after missed a deleted file).
    @Test func aKeyIsNotBusyOnceItsOperationReturned() async throws {
        let serial = SerialByKey()
        var busyAfterReturn = 0
        for round in 0..<500 {
            _ = try await serial.run("k") { round }
            if serial.isBusy("k") { busyAfterReturn += 1 }
        }
        #expect(busyAfterReturn == 0)
    }

    @Test func operationsOfOneKeyNeverOverlapAndOtherKeysDoNotWait() async throws {
        let serial = SerialByKey()
        let running = Concurrency()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await serial.run("a") {
                        running.began()
                        await Task.yield()
                        running.ended()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(running.most == 1)
        #expect(!serial.isBusy("a"))

        // An operation of "a" waiting for one of "b" finishes: keys do not wait for each other.
        let (signal, continuation) = AsyncStream.makeStream(of: Void.self)
        let waited = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await serial.run("a") {
                    for await _ in signal { return true }
                    return false
                }
            }
            group.addTask {
                try await serial.run("b") { continuation.yield() }
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return false
            }
            var results: [Bool] = []
            for try await result in group {
                results.append(result)
                if results.count == 2 || !result { break }
            }
            group.cancelAll()
            continuation.finish()
            return results
        }
        #expect(waited == [true, true])
    }
}

/// Counts operations running at once and the most seen.
final class Concurrency: Sendable {
    private let state = Mutex((now: 0, most: 0))

    func began() {
        state.withLock {
            $0.now += 1; $0.most = max($0.most, $0.now)
        }
    }
    func ended() { state.withLock { $0.now -= 1 } }
    var most: Int { state.withLock { $0.most } }
}

/// Tells when the engine revokes one of its listens.
final class RevocationWaiter: ListenSubscriber {
    private let stream: AsyncStream<ListenRegistration>
    private let continuation: AsyncStream<ListenRegistration>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: ListenRegistration.self)
    }

    func deliver(_ update: EncodedUpdate, for registration: ListenRegistration) {}

    func revoked(_ registration: ListenRegistration) {
        continuation.yield(registration)
    }

    /// The first revoked registration, or nil when none comes within `limit`.
    func firstRevocation(within limit: Duration) async -> ListenRegistration? {
        let stream = self.stream
        return await withTaskGroup(of: ListenRegistration?.self) { group in
            group.addTask {
                for await registration in stream { return registration }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
    }
}
