import HearthCore
import HearthStore
import Testing

@testable import HearthDatabase

/// A registration stores one record and a cancel only the records it changes, so the cost of
/// one more operation does not grow with the connection's list (it used to rewrite the whole
/// list: 800 registrations cost 12–16 s of CPU). Measured in bytes written, not in time.
struct OnDisconnectCostTests {
    /// The same shape for every index, so every record has the same size.
    static func presence(_ index: Int) -> Write {
        Write(.set(path("presence/u\(1000 + index)"), value(#"{"state":"offline","at":{".sv":"timestamp"}}"#)))
    }

    @Test func theEightHundredthRegistrationWritesWhatTheFirstDid() async throws {
        try await withDatabase { db, engine in
            let ns = try db.store.namespace("default")
            let connection = ConnectionID("c-many")
            var costs: [Int] = []
            for index in 0..<800 {
                let before = ns.onDisconnectBytesWritten
                try await engine.registerOnDisconnect(
                    connection: connection,
                    Self.presence(index),
                    as: .admin,
                    limit: 10_000
                )
                costs.append(ns.onDisconnectBytesWritten - before)
            }
            let record = costs[0]
            #expect(record > 0)
            #expect(costs.allSatisfy { $0 == record }, "bytes per registration: \(Set(costs).sorted())")
            let stored = try ns.loadOnDisconnect()
            #expect(stored.count == 1)
            #expect(stored.first?.operations.map(\.position) == (0..<800).map(UInt32.init))
        }
    }

    @Test func aCancelWritesOnlyTheRecordsItChanges() async throws {
        try await withDatabase { db, engine in
            let ns = try db.store.namespace("default")
            let connection = ConnectionID("c-cancel-cost")
            for index in 0..<200 {
                try await engine.registerOnDisconnect(connection: connection, Self.presence(index), as: .admin)
            }
            let update = Write(
                .update(
                    path("rooms/r1"),
                    [
                        UpdateEntry(path: path("typing/ada"), value: value("null")),
                        UpdateEntry(path: path("seen/ada"), value: value("1")),
                    ]
                )
            )
            try await engine.registerOnDisconnect(connection: connection, update, as: .admin)
            let recordKeyBytes = 1 + 4 + 2 + connection.rawValue.utf8.count + 4

            // One set cancelled: one delete.
            var before = ns.onDisconnectBytesWritten
            try await engine.cancelOnDisconnect(connection: connection, at: path("presence/u1100"))
            #expect(ns.onDisconnectBytesWritten - before == recordKeyBytes)

            // One update entry cancelled: that update's record is rewritten, nothing else.
            before = ns.onDisconnectBytesWritten
            try await engine.cancelOnDisconnect(connection: connection, at: path("rooms/r1/typing"))
            let trimmed = Write(.update(path("rooms/r1"), [UpdateEntry(path: path("seen/ada"), value: value("1"))]))
            #expect(ns.onDisconnectBytesWritten - before == recordKeyBytes + OnDisconnectCodec.encode(trimmed).count)

            // Nothing there: nothing written.
            before = ns.onDisconnectBytesWritten
            try await engine.cancelOnDisconnect(connection: connection, at: path("elsewhere"))
            #expect(ns.onDisconnectBytesWritten == before)

            let stored = try #require(try ns.loadOnDisconnect().first)
            #expect(stored.operations.count == 200)
            #expect(!stored.operations.contains { $0.position == 100 })
            #expect(try OnDisconnectCodec.decode(try #require(stored.operations.last).bytes) == trimmed)
        }
    }

    /// Cancels keep Firebase's semantics (at and below the path, update entries trimmed) and
    /// the writes left run in registration order, later ones over earlier ones.
    @Test func cancelledAndTrimmedWritesRunInRegistrationOrder() async throws {
        try await withDatabase { _, engine in
            let connection = ConnectionID("c-order")
            let writes = [
                Write(.set(path("a"), value("1"))),
                Write(.set(path("b/c"), value("1"))),
                Write(
                    .update(
                        .root,
                        [
                            UpdateEntry(path: path("b/d"), value: value("2")),
                            UpdateEntry(path: path("e"), value: value("2")),
                        ]
                    )
                ),
                Write(.set(path("a"), value("3"))),
                Write(.set(path("b"), value(#"{"x":4}"#))),
            ]
            for write in writes { try await engine.registerOnDisconnect(connection: connection, write, as: .admin) }
            // At and below b/c: the set of b/c only (not b, which is above it).
            try await engine.cancelOnDisconnect(connection: connection, at: path("b/c"))
            // The e entry of the update; its b/d entry stays.
            try await engine.cancelOnDisconnect(connection: connection, at: path("e"))
            #expect(engine.onDisconnectCount(connection: connection) == 4)
            await engine.runOnDisconnect(connection: connection)
            // b/d=2 ran before b={x:4}, which replaced it; a=3 after a=1.
            #expect(text(try await engine.get(path: .root, query: nil, as: .admin)) == #"{"a":3,"b":{"x":4}}"#)
            #expect(engine.onDisconnectCount(connection: connection) == 0)
        }
    }

    @Test func theCapRefusesOneMoreAndACancelMakesRoom() async throws {
        try await withDatabase { db, engine in
            let ns = try db.store.namespace("default")
            let connection = ConnectionID("c-cap")
            for index in 0..<3 {
                try await engine.registerOnDisconnect(
                    connection: connection,
                    Self.presence(index),
                    as: .admin,
                    limit: 3
                )
            }
            let written = ns.onDisconnectBytesWritten
            await #expect(throws: DatabaseError.tooManyOnDisconnectOperations(limit: 3)) {
                try await engine.registerOnDisconnect(connection: connection, Self.presence(3), as: .admin, limit: 3)
            }
            #expect(ns.onDisconnectBytesWritten == written)
            #expect(engine.onDisconnectCount(connection: connection) == 3)
            // Another connection has a cap of its own.
            try await engine.registerOnDisconnect(
                connection: ConnectionID("c-other"),
                Self.presence(9),
                as: .admin,
                limit: 3
            )
            try await engine.cancelOnDisconnect(connection: connection, at: path("presence/u1000"))
            try await engine.registerOnDisconnect(connection: connection, Self.presence(3), as: .admin, limit: 3)
            let positions = try ns.loadOnDisconnect().first { $0.connection == "c-cap" }?.operations.map(\.position)
            #expect(positions == [1, 2, 3])
        }
    }

    /// Records are keyed `connection id · position` as before this change; a previous build
    /// stored dense positions, this one leaves gaps after cancels. Both run, in position order.
    @Test func recordsWithGapsOrDensePositionsRunInOrderAtTheNextStart() async throws {
        let first = try TestDatabase()
        let ns = try first.store.namespace("default")
        let dense = [Write(.set(path("dense"), value("1"))), Write(.set(path("dense"), value("2")))]
        try await ns.saveOnDisconnect(
            connection: "c1",
            operations: dense.enumerated().map { (UInt32($0.offset), OnDisconnectCodec.encode($0.element)) }
        )
        let sparse: [(UInt32, Write)] = [
            (7, Write(.set(path("sparse"), value("1")))), (300, Write(.set(path("sparse"), value("2")))),
            (70_000, Write(.set(path("sparse"), value("3")))),
        ]
        try await ns.saveOnDisconnect(
            connection: "c2",
            operations: sparse.map { ($0.0, OnDisconnectCodec.encode($0.1)) }
        )
        first.store.close()

        let second = try TestDatabase(directory: first.directory)
        defer { second.destroy() }
        await second.database.runStoredOnDisconnect()
        let root = try await second.engine().get(path: .root, query: nil, as: .admin)
        #expect(text(root) == #"{"dense":2,"sparse":3}"#)
        #expect(try second.store.namespace("default").loadOnDisconnect().isEmpty)
    }

    /// Connection ids restart with each process: records a previous process left under the
    /// same id (normally run at start) go when the id registers its first operation.
    @Test func aConnectionsFirstRegistrationReplacesRecordsLeftUnderItsID() async throws {
        try await withDatabase { db, engine in
            let ns = try db.store.namespace("default")
            try await ns.saveOnDisconnect(
                connection: "c-reused",
                operations: [(0, OnDisconnectCodec.encode(Write(.set(path("stale"), value("1"))))), (5, [0x7B, 0x7D])]
            )
            let connection = ConnectionID("c-reused")
            try await engine.registerOnDisconnect(
                connection: connection,
                Write(.set(path("fresh"), value("1"))),
                as: .admin
            )
            try await engine.registerOnDisconnect(
                connection: connection,
                Write(.set(path("fresh2"), value("1"))),
                as: .admin
            )
            let stored = try #require(try ns.loadOnDisconnect().first)
            #expect(stored.operations.map(\.position) == [0, 1])
            await engine.runOnDisconnect(connection: connection)
            #expect(text(try await engine.get(path: .root, query: nil, as: .admin)) == #"{"fresh":1,"fresh2":1}"#)
            #expect(try ns.loadOnDisconnect().isEmpty)
        }
    }

    /// After 2³² registrations on one connection the positions would run out: the list is
    /// numbered again from 0 and stored whole, once.
    @Test func positionsThatRunOutAreNumberedAgainInOrder() {
        let registry = OnDisconnectRegistry(lastPosition: 5)
        let connection = ConnectionID("c-wrap")
        let writes = (0..<8).map { Write(.set(path("w\($0)"), value("\($0)"))) }
        #expect(registry.register(writes[0], for: connection, limit: 10) == .added(position: 0, isFirst: true))
        #expect(registry.register(writes[1], for: connection, limit: 10) == .added(position: 1, isFirst: false))
        #expect(registry.register(writes[2], for: connection, limit: 10) == .added(position: 2, isFirst: false))
        #expect(registry.cancel(at: path("w0"), for: connection).map(\.position) == [0])
        #expect(registry.cancel(at: path("w1"), for: connection).map(\.position) == [1])
        #expect(registry.register(writes[3], for: connection, limit: 10) == .added(position: 3, isFirst: false))
        #expect(registry.register(writes[4], for: connection, limit: 10) == .added(position: 4, isFirst: false))
        #expect(
            registry.register(writes[5], for: connection, limit: 10)
                == .renumbered(
                    (2...5).enumerated().map { .init(position: UInt32($0.offset), write: writes[$0.element]) }
                )
        )
        #expect(registry.register(writes[6], for: connection, limit: 10) == .added(position: 4, isFirst: false))
        #expect(registry.register(writes[7], for: connection, limit: 5) == .full)
        #expect(registry.take(for: connection).map(\.write) == Array(writes[2...6]))
        #expect(registry.count(for: connection) == 0)
    }
}
