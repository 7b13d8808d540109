import HearthCore
import HearthProtocol
import HearthStore
import Testing

@testable import HearthDatabase

@Suite struct WriteTests {
    /// A transaction as the SDK runs it: send the new value with the hash of the value it was
    /// computed from; on `datastale` (condition failed) retry from the current value.
    static func increment(_ engine: NamespaceEngine, at where_: String) async throws -> Int {
        var current = try await engine.get(path: path(where_), query: nil, as: .admin)
        var retries = 0
        while true {
            let number: Double
            if case .leaf(.number(let n), _)? = current { number = n } else { number = 0 }
            let request = WriteRequest.set(
                PutRequest(path: path(where_), value: value("\(Int(number) + 1)"), hash: ValueHash.hash(current))
            )
            switch try await engine.write(Write(request: request), as: .admin) {
            case .committed:
                return retries
            case .conditionFailed(let latest, _):
                current = latest
                retries += 1
            }
        }
    }

    @Test func contendingTransactionsEndAtTheExactSum() async throws {
        try await withDatabase { _, engine in
            // Starts as null: the SDK's hash of null is "".
            async let first: Int = {
                var r = 0; for _ in 0..<100 { r += try await Self.increment(engine, at: "counter") }; return r
            }()
            async let second: Int = {
                var r = 0; for _ in 0..<100 { r += try await Self.increment(engine, at: "counter") }; return r
            }()
            let retries = try await first + second
            let final = try await engine.get(path: path("counter"), query: nil, as: .admin)
            #expect(final == .leaf(.number(200), priority: nil))
            print("transaction retries: \(retries)")
        }
    }

    @Test func writeRequestConversion() {
        let put = Write(request: .set(PutRequest(path: path("a"), isPriority: true, value: value("3"), hash: "")))
        #expect(put == Write(.set(path("a/.priority"), value("3")), ifMatch: "null_etag"))
        let merge = Write(
            request: .merge(
                MergeRequest(
                    path: path("m"),
                    entries: [
                        MergeEntry(path: path("x/y"), value: value("1")),
                        MergeEntry(path: path("z"), isPriority: true, value: value("2")),
                    ]
                )
            )
        )
        #expect(
            merge
                == Write(
                    .update(
                        path("m"),
                        [
                            UpdateEntry(path: path("x/y"), value: value("1")),
                            UpdateEntry(path: path("z/.priority"), value: value("2")),
                        ]
                    )
                )
        )
        #expect(Write(request: .set(PutRequest(path: path("a"), value: value("1"), hash: "abc="))).ifMatch == "abc=")
    }

    @Test func getThroughAQuery() async throws {
        try await withDatabase { _, engine in
            try await engine.set("l", #"{"a":{"s":3},"b":{"s":1},"c":{"s":2},".priority":4}"#)
            let top = try await engine.get(
                path: path("l"),
                query: Query(order: .child(path("s")), limit: .last(2)),
                as: .admin
            )
            #expect(text(top) == #"{"a":{"s":3},"c":{"s":2}}"#)
            let all = try await engine.get(path: path("l"), query: Query(order: .child(path("s"))), as: .admin)
            #expect(text(all) == #"{"a":{"s":3},"b":{"s":1},"c":{"s":2},".priority":4}"#)
        }
    }

    @Test func onDisconnectRunsInOrderAndCancelRemovesAtAndBelow() async throws {
        let db = try TestDatabase(clock: { 1234 })
        defer { db.destroy() }
        let engine = try db.engine()
        let connection = ConnectionID.unique()
        let other = ConnectionID.unique()
        try await engine.registerOnDisconnect(connection: connection, Write(.set(path("a"), value("1"))), as: .admin)
        try await engine.registerOnDisconnect(
            connection: connection,
            Write(
                .update(
                    .root,
                    [
                        UpdateEntry(path: path("b"), value: value("2")),
                        UpdateEntry(path: path("p/q"), value: value("3")),
                    ]
                )
            ),
            as: .admin
        )
        try await engine.registerOnDisconnect(
            connection: connection,
            Write(.set(path("a"), value(#"{"t":{".sv":"timestamp"}}"#))),
            as: .admin
        )
        try await engine.registerOnDisconnect(connection: connection, Write(.set(path("x/y"), value("1"))), as: .admin)
        try await engine.registerOnDisconnect(connection: connection, Write(.set(path("p/r"), value("1"))), as: .admin)
        try await engine.registerOnDisconnect(connection: other, Write(.set(path("o"), value("1"))), as: .admin)
        try await engine.cancelOnDisconnect(connection: connection, at: path("x"))
        try await engine.cancelOnDisconnect(connection: connection, at: path("p"))
        #expect(engine.onDisconnectCount(connection: connection) == 3)
        let subscriber = FakeSubscriber()
        _ = try await engine.listen(path: .root, query: nil, subscriber: subscriber, as: .admin)
        await engine.runOnDisconnect(connection: connection)
        await engine.waitForDeliveries()
        #expect(subscriber.lines == ["d a 1", #"m  {"b":2}"#, #"d a {"t":1234}"#])
        #expect(engine.onDisconnectCount(connection: connection) == 0)
        await engine.runOnDisconnect(connection: connection)
        let root = try await engine.get(path: .root, query: nil, as: .admin)
        #expect(text(root) == #"{"a":{"t":1234},"b":2}"#)
        #expect(engine.onDisconnectCount(connection: other) == 1)
    }

    @Test func namespacesHaveTheirOwnEngines() throws {
        let db = try TestDatabase()
        defer { db.destroy() }
        #expect(try db.database.namespace("a") === db.database.namespace("a"))
        #expect(try db.database.namespace("a") !== db.database.namespace("b"))
        #expect(throws: StoreError.self) { try db.database.namespace("bad name") }
    }
}
