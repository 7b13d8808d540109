import HearthCore
import Testing

@testable import HearthStore

/// Writes of one round that write the same hot locations (a chat's counters, written by every
/// message): staged together when the writer planned those locations from what it remembers of
/// them, with each key put once in the group's batch.
@Suite struct HotStagingTests {
    static let increment = #"{".sv":{"increment":1}}"#

    /// A namespace whose counters `c/a`, `c/b`, `c/x` the writer remembers (written twice).
    static func warmCounters(_ temp: TemporaryStore) async throws -> NamespaceStore {
        let ns = try temp.store.namespace("default")
        for _ in 0..<2 {
            try await ns.update("c", [("a", "0"), ("b", "0"), ("x", #"{"n":0}"#)])
        }
        return ns
    }

    static func message(_ n: Int) throws -> Write {
        Write(
            .update(
                .root,
                [
                    UpdateEntry(path: path("m/m\(n)"), value: try value(#"{"text":"hi \#(n)"}"#)),
                    UpdateEntry(path: path("c/a"), value: try value(increment)),
                    UpdateEntry(path: path("c/b"), value: try value(increment)),
                    UpdateEntry(path: path("c/x"), value: try value(#"{"n":\#(n)}"#)),
                ]
            )
        )
    }

    @Test func writesOfARoundThatShareRememberedCountersAreStagedAsOneBatch() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try await Self.warmCounters(temp)
        let groups = temp.probe.groupsApplied
        let results = try await ns.writeInOneRound(try (1...5).map(Self.message)).map { try $0.get() }
        let sequences = results.map { result -> UInt64 in if case .committed(let s, _) = result { s } else { 0 } }
        #expect(sequences == [3, 4, 5, 6, 7])
        #expect(temp.probe.groupsApplied == groups + 1)
        // Each counter once (3 keys), each message's text (5), the sequence number (1): not 5 × 4 + 1.
        #expect(temp.probe.lastGroupOperations == 9)
        #expect(try await ns.json("c") == #"{"a":5,"b":5,"x":{"n":5}}"#)
        #expect(try await ns.json("m/m3") == #"{"text":"hi 3"}"#)
        // The increments were answered in order: each write saw the one before.
        if case .committed(_, let values) = results[2] {
            #expect(values[1] == .leaf(.number(3), priority: nil))
        } else {
            Issue.record("the third message was not committed: \(results[2])")
        }
        try temp.reopen()
        let reopened = try temp.store.namespace("default")
        #expect(try await reopened.json("c") == #"{"a":5,"b":5,"x":{"n":5}}"#)
        #expect(try await reopened.read { $0.sequence } == 7)
    }

    @Test func aCounterTheWriterDoesNotRememberWaitsForTheFlush() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        // A new node is not remembered (only what the writer wrote over): the increments
        // after it must read it from the store, once it is there.
        let writes =
            try [Write(.set(path("c/a"), try value("10")))]
            + (0..<2).map { _ in Write(.set(path("c/a"), try value(Self.increment))) }
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        #expect(try await ns.json("c/a") == "12")
    }

    @Test(arguments: [
        (#"c"#, #"{"a":7}"#, #"{"a":7}"#),
        (#"c/a/deeper"#, #"true"#, #"{"a":{"deeper":true},"b":1,"x":{"n":1}}"#),
        (#"c/x/n"#, Self.increment, #"{"a":1,"b":1,"x":{"n":2}}"#),
    ])
    func aWriteAboveOrBelowAStagedCounterSeesIt(path where_: String, json: String, expected: String) async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try await Self.warmCounters(temp)
        let results = try await ns.writeInOneRound([try Self.message(1), Write(.set(path(where_), try value(json)))])
        for result in results { _ = try result.get() }
        #expect(try await ns.json("c") == expected)
    }

    @Test func aRefusedGroupOfHotWritesLeavesTheCountersAsTheyWere() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try await Self.warmCounters(temp)
        let probe = temp.probe
        let results = try await ns.writeInOneRound(try (1...3).map(Self.message)) {
            probe.failNextGroup(with: StagedWritesTests.InjectedFailure())
        }
        for result in results {
            #expect(throws: StagedWritesTests.InjectedFailure.self) { try result.get() }
        }
        #expect(try await ns.json("c") == #"{"a":0,"b":0,"x":{"n":0}}"#)
        // The writer forgot what it remembered: the next increments read the store.
        try await ns.update("", [("c/a", Self.increment)])
        #expect(try await ns.json("c/a") == "1")
    }
}

/// The chat's case: members' chat lists indexed by their counters, written by every message.
@Suite struct HotIndexedStagingTests {
    static let specs = [
        IndexSpec(location: [.key(ChildKey("uc")), .wildcard("$uid")], indexed: .child(path("unread"))),
        IndexSpec(location: [.key(ChildKey("uc")), .wildcard("$uid")], indexed: .child(path("at"))),
    ]

    static func message(_ n: Int, chat: String = "c1") throws -> Write {
        Write(
            .update(
                .root,
                try [
                    UpdateEntry(path: path("m/\(chat)/m\(n)"), value: try value(#"{"text":"hi"}"#)),
                    UpdateEntry(path: path("uc/u0/\(chat)/at"), value: try value("\(n)")),
                ]
                    + (1...3).flatMap { member in
                        [
                            UpdateEntry(
                                path: path("uc/u\(member)/\(chat)/unread"),
                                value: try value(HotStagingTests.increment)
                            ),
                            UpdateEntry(path: path("uc/u\(member)/\(chat)/at"), value: try value("\(n)")),
                        ]
                    }
            )
        )
    }

    @Test func messagesOfARoundKeepTheirMembersIndexedChatListsCurrentInOneBatch() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes(Self.specs)
        for member in 0...3 {
            try await ns.set("uc/u\(member)", #"{"c0":{"unread":2,"at":100},"c1":{"unread":0,"at":0}}"#)
        }
        // Warm: the writer remembers the counters once it wrote over them.
        _ = try await ns.write(try Self.message(1))
        let groups = temp.probe.groupsApplied
        for result in try await ns.writeInOneRound(try (2...6).map { try Self.message($0) }) { _ = try result.get() }
        #expect(temp.probe.groupsApplied == groups + 1)
        #expect(try await ns.json("uc/u2/c1") == #"{"at":6,"unread":6}"#)
        for member in 1...3 {
            let byUnread = try await ns.read {
                try $0.query(at: path("uc/u\(member)"), Query(order: .child(path("unread"))))
            }
            #expect(byUnread.map(\.key.string) == ["c0", "c1"], "u\(member) by unread")
            let byTime = try await ns.read { try $0.query(at: path("uc/u\(member)"), Query(order: .child(path("at")))) }
            #expect(byTime.map(\.key.string) == ["c1", "c0"], "u\(member) by time")
        }
        // No entry of an old value is left behind: a range query at an old count finds nothing.
        var query = Query(order: .child(path("unread")))
        query.start = QueryBound(value: .number(3), key: nil)
        query.end = QueryBound(value: .number(5), key: nil)
        let frozen = query
        #expect(try await ns.read { try $0.query(at: path("uc/u1"), frozen) }.isEmpty)
        try temp.reopen()
        let reopened = try temp.store.namespace("default")
        let after = try await reopened.read { try $0.query(at: path("uc/u3"), Query(order: .child(path("unread")))) }
        #expect(
            after.map(\.node) == [
                try #require(try value(#"{"at":100,"unread":2}"#).node),
                try #require(try value(#"{"at":6,"unread":6}"#).node),
            ]
        )
    }

    /// A refresh leaves a child's entry alone when its indexed value does not change; a write
    /// over the whole list drops the entries of children it does not have, so a child written
    /// back with the very value it had must be indexed again (its old value is not what is
    /// stored any more).
    @Test func aChildReindexedAwayAndBackWithTheSameValueIsIndexedAgain() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes(Self.specs)
        // Indexed from a write above the lists.
        try await ns.set("uc", #"{"u1":{"c0":{"unread":0},"c1":{"unread":3}}}"#)
        try await ns.set("uc/u1", #"{"c0":{"unread":1}}"#)
        try await ns.update("uc/u1", [("c1/unread", "3")])
        let byUnread = try await ns.read { try $0.query(at: path("uc/u1"), Query(order: .child(path("unread")))) }
        #expect(byUnread.map(\.key.string) == ["c0", "c1"])
    }

    /// A write that sets the indexed child itself is indexed from its own value (a number, an
    /// object, a number again); one that deletes it, or writes beside it, from what the child
    /// holds after the write.
    @Test func theIndexedValueWrittenDirectlyOrRemovedOrderTheList() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes(Self.specs)
        try await ns.set("uc/u1", #"{"a":{"at":1,"unread":0},"b":{"at":2,"unread":0},"c":{"at":3,"unread":0}}"#)
        func byTime() async throws -> [String] {
            try await ns.read { try $0.query(at: path("uc/u1"), Query(order: .child(path("at")))) }.map(\.key.string)
        }
        try await ns.update("uc/u1", [("a/at", "5")])
        #expect(try await byTime() == ["b", "c", "a"])
        // Objects sort after every number; a write below the indexed value makes it one.
        try await ns.update("uc/u1", [("b/at", #"{"x":1}"#), ("c/unread", "1")])
        #expect(try await byTime() == ["c", "a", "b"])
        try await ns.update("uc/u1", [("b/at/x", "2")])
        #expect(try await byTime() == ["c", "a", "b"])
        // Removed: the child stays, without a value, and sorts first.
        try await ns.update("uc/u1", [("a/at", "null")])
        #expect(try await byTime() == ["a", "c", "b"])
        try await ns.update("uc/u1", [("b/at", "0")])
        #expect(try await byTime() == ["a", "b", "c"])
        // The child itself removed by deleting its last value: its entry goes.
        try await ns.update("uc/u1", [("a/unread", "null")])
        #expect(try await byTime() == ["b", "c"])
        try temp.reopen()
        let reopened = try temp.store.namespace("default")
        let after = try await reopened.read { try $0.query(at: path("uc/u1"), Query(order: .child(path("at")))) }
        #expect(after.map(\.key.string) == ["b", "c"])
        var range = Query(order: .child(path("at")))
        range.start = QueryBound(value: .number(1), key: nil)
        range.end = QueryBound(value: .number(5), key: nil)
        let frozen = range
        #expect(try await reopened.read { try $0.query(at: path("uc/u1"), frozen) }.map(\.key.string) == ["c"])
    }
}
