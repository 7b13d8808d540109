import HearthCore
import HearthStore
import Testing

@testable import HearthDatabase

/// onDisconnect writes are stored as they are registered and cancelled, run once, and run at
/// the next start when the process stopped before their connection closed.
struct OnDisconnectDurabilityTests {
    static let writes: [Write] = [
        Write(.set(path("a"), value("1"))),
        Write(.set(.root, value(#"{"x":{".value":"v",".priority":2},"y":[1,2],".priority":"p"}"#))),
        Write(.set(path("a/.priority"), value("5"))),
        Write(.set(path("gone"), value("null"))),
        Write(.set(path("t"), value(#"{"at":{".sv":"timestamp"},"n":{".sv":{"increment":2.5}}}"#))),
        Write(.set(path("u"), value(#"{".priority":{".sv":"timestamp"},"k":1}"#))),
        // A key that starts with a combining mark (it must not glue onto the '/' before it).
        Write(
            .set(
                DataPath(keys: [ChildKey("e\u{301}"), ChildKey("\u{301}k"), ChildKey("ü 1")]),
                value(#""\u0000 \"quoted\" é""#)
            )
        ),
        Write(
            .update(
                path("room"),
                [
                    UpdateEntry(path: path("members/ada"), value: value("true")),
                    UpdateEntry(path: path("last"), value: value(#"{".sv":"timestamp"}"#)),
                    UpdateEntry(path: path("old"), value: value("null")),
                    UpdateEntry(path: path("name/.priority"), value: value("1")),
                ]
            )
        ),
    ]

    @Test(arguments: 0..<writes.count)
    func aStoredWriteReadsBackUnchanged(index: Int) throws {
        let write = Self.writes[index]
        #expect(try OnDisconnectCodec.decode(OnDisconnectCodec.encode(write)) == write)
    }

    @Test func writesLeftByAStoppedProcessRunOnceAtTheNextStart() async throws {
        let first = try TestDatabase()
        let engine = try first.engine()
        let ada = ConnectionID("ada-session")
        let bob = ConnectionID("bob-session")
        try await engine.registerOnDisconnect(
            connection: ada,
            Write(.set(path("status/ada"), value(#""online""#))),
            as: .admin
        )
        try await engine.registerOnDisconnect(
            connection: ada,
            Write(.set(path("status/ada"), value(#"{"state":"offline","at":{".sv":"timestamp"}}"#))),
            as: .admin
        )
        try await engine.registerOnDisconnect(
            connection: ada,
            Write(.update(path("rooms/r1"), [UpdateEntry(path: path("typing/ada"), value: value("null"))])),
            as: .admin
        )
        try await engine.registerOnDisconnect(
            connection: bob,
            Write(.set(path("status/bob"), value(#""offline""#))),
            as: .admin
        )
        try await engine.registerOnDisconnect(connection: bob, Write(.set(path("cancelled"), value("1"))), as: .admin)
        try await engine.cancelOnDisconnect(connection: bob, at: path("cancelled"))
        _ = try await first.store.namespace("default").write(Write(.set(path("rooms/r1/typing/ada"), value("true"))))
        // The process stops without closing its connections (as a crash would).
        first.store.close()

        let second = try TestDatabase(directory: first.directory, clock: { 4242 })
        defer { second.destroy() }
        let ns = try second.store.namespace("default")
        #expect(try ns.loadOnDisconnect().map(\.operations.count).sorted() == [1, 3])
        await second.database.runStoredOnDisconnect()
        let root = try await second.engine().get(path: .root, query: nil, as: .admin)
        #expect(text(root) == #"{"status":{"ada":{"at":4242,"state":"offline"},"bob":"offline"}}"#)
        #expect(try ns.loadOnDisconnect().isEmpty)
        // Run once: a later start finds nothing to run.
        let engineAgain = try second.engine()
        #expect(await engineAgain.runStoredOnDisconnect() == 0)
    }

    @Test func runningOnDisconnectRemovesTheRecordsFailedWritesIncluded() async throws {
        try await withDatabase { db, engine in
            let connection = ConnectionID("c-run")
            try await engine.registerOnDisconnect(
                connection: connection,
                Write(.set(path("a"), value("1"))),
                as: .admin
            )
            // Overlapping update paths: refused when it runs (admins skip the check at registration).
            let overlapping = Write(
                .update(
                    .root,
                    [
                        UpdateEntry(path: path("b"), value: value("1")),
                        UpdateEntry(path: path("b/c"), value: value("2")),
                    ]
                )
            )
            try await engine.registerOnDisconnect(connection: connection, overlapping, as: .admin)
            let ns = try db.store.namespace("default")
            #expect(try ns.loadOnDisconnect().first?.operations.map(\.position) == [0, 1])
            await engine.runOnDisconnect(connection: connection)
            #expect(try ns.loadOnDisconnect().isEmpty)
            #expect(text(try await engine.get(path: .root, query: nil, as: .admin)) == #"{"a":1}"#)
        }
    }

    @Test func cancellingEverythingLeavesNoRecord() async throws {
        try await withDatabase { db, engine in
            let connection = ConnectionID("c-cancel")
            try await engine.registerOnDisconnect(
                connection: connection,
                Write(.set(path("p/a"), value("1"))),
                as: .admin
            )
            try await engine.registerOnDisconnect(
                connection: connection,
                Write(.set(path("q"), value("1"))),
                as: .admin
            )
            try await engine.cancelOnDisconnect(connection: connection, at: path("p"))
            #expect(try db.store.namespace("default").loadOnDisconnect().first?.operations.count == 1)
            try await engine.cancelOnDisconnect(connection: connection, at: .root)
            #expect(try db.store.namespace("default").loadOnDisconnect().isEmpty)
        }
    }
}
