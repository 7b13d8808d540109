import HearthCore
import Synchronization
import Testing

@testable import HearthStore

/// Write triggers: which writes reach them, with what, and how their updates commit.
@Suite(.timeLimit(.minutes(3))) struct WriteTriggerTests {
    @Test func aCounterFollowsItemsAddedAndRemovedEveryWayIn() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("lists/a/items/i1", #"{"t":"x"}"#)
        // A multi-path update adding two items to one list and one to another.
        _ = try await ns.update(
            "lists",
            [("a/items/i2", #"{"t":"y"}"#), ("a/items/i3", #""z""#), ("b/items/j1", "true")]
        )
        #expect(try await ns.json("counts") == #"{"a":3,"b":1}"#)
        // A write below an item changes it but does not add one.
        try await ns.set("lists/a/items/i1/t", #""changed""#)
        #expect(try await ns.json("counts") == #"{"a":3,"b":1}"#)
        // A delete above the items removes each of them.
        try await ns.set("lists/a", "null")
        #expect(try await ns.json("counts") == #"{"a":0,"b":1}"#)
        // A set above the items that replaces some and keeps others.
        try await ns.set("lists/b", #"{"items":{"j1":true,"j2":false}}"#)
        #expect(try await ns.json("counts") == #"{"a":0,"b":2}"#)
    }

    @Test func aTriggerSeesWildcardsValuesBeforeAndAfterAndTheAuthor() async throws {
        let recorder = RecordingTrigger(pattern: "/lists/$list/items/$item")
        let temp = try TemporaryStore.with([recorder])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        _ = try await ns.write(
            Write(.set(path("lists/l1/items/i1"), try value(#"{"t":"a"}"#)), author: .user(uid: "ada"))
        )
        _ = try await ns.write(Write(.set(path("lists/l1/items/i1/t"), try value(#""b""#)), author: .admin))
        // Unchanged: not reported.
        _ = try await ns.write(Write(.set(path("lists/l1/items/i1/t"), try value(#""b""#))))
        let seen = recorder.changes
        #expect(seen.count == 2)
        #expect(
            seen.first
                == RecordingTrigger.Seen(
                    path: "/lists/l1/items/i1",
                    wildcards: ["list": "l1", "item": "i1"],
                    before: nil,
                    after: try value(#"{"t":"a"}"#).node,
                    author: .user(uid: "ada")
                )
        )
        #expect(seen.last?.before == (try value(#"{"t":"a"}"#).node))
        #expect(seen.last?.after == (try value(#"{"t":"b"}"#).node))
        #expect(seen.last?.author == .admin)
    }

    @Test func derivedUpdatesCommitAsOneCommitWithOneSequenceNumber() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let seen = Mutex<[CommittedWrite]>([])
        ns.observeCommits { commit in seen.withLock { $0.append(commit) } }
        let result = try await ns.set("lists/a/items/i1", "1")
        #expect(result == .committed(sequence: 1, values: [.leaf(.number(1), priority: nil)]))
        #expect(try await ns.read { $0.sequence } == 1)
        let commits = seen.withLock { $0 }
        #expect(commits.count == 1)
        #expect(
            commits.first
                == CommittedWrite(
                    sequence: 1,
                    location: .root,
                    kind: .update([
                        (path("lists/a/items/i1"), .leaf(.number(1), priority: nil)),
                        (path("counts/a"), .leaf(.number(1), priority: nil)),
                    ])
                )
        )
    }

    @Test func derivedUpdatesKeepIndexesCurrent() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([IndexSpec(location: [.key(ChildKey("counts"))], indexed: .value)])
        _ = try await ns.update("lists", [("a/items/1", "1"), ("a/items/2", "1"), ("b/items/1", "1")])
        try await ns.set("lists/c/items/1", "1")
        let ordered = try await ns.read { try $0.query(at: path("counts"), Query(order: .value)) }
        #expect(ordered.map(\.key.string) == ["b", "c", "a"])
    }

    @Test func anOnDisconnectWriteRunsTheTriggersAndConsumesItsRecord() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.addOnDisconnect(connection: "c1", position: 0, operation: [1], replacingStale: true)
        let record = NamespaceStore.OnDisconnectRecord(connection: "c1", position: 0)
        _ = try await ns.write(Write(.set(path("lists/a/items/gone"), try value("true"))), consuming: record)
        #expect(try await ns.json("counts/a") == "1")
        #expect(try ns.hasOnDisconnectRecords() == false)
    }

    @Test func aTransactionRunsTheTriggersOnlyWhenItsConditionHolds() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let failed = try await ns.write(Write(.set(path("lists/a/items/1"), try value("1")), ifMatch: "wrong"))
        guard case .conditionFailed = failed else {
            Issue.record("the condition held: \(failed)")
            return
        }
        #expect(try await ns.json("counts") == "null")
        _ = try await ns.write(Write(.set(path("lists/a/items/1"), try value("1")), ifMatch: "null_etag"))
        #expect(try await ns.json("counts/a") == "1")
    }

    @Test func aThrowingTriggerRefusesTheWholeWrite() async throws {
        let temp = try TemporaryStore.with([Censor()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("messages/m1", #"{"text":"fine"}"#)
        #expect(try await ns.json("last") == #""m1""#)
        let refused = Write(
            .update(
                .root,
                [
                    UpdateEntry(path: path("messages/m2"), value: try value(#"{"text":"forbidden"}"#)),
                    UpdateEntry(path: path("other"), value: try value("1")),
                ]
            )
        )
        let error = await #expect(throws: StoreError.self) { try await ns.write(refused) }
        #expect(error?.code == .invalidWrite)
        #expect(error?.message.contains("/messages/$id") == true)
        #expect(error?.message.contains("forbidden text") == true)
        #expect(try await ns.json("") == #"{"last":"m1","messages":{"m1":{"text":"fine"}}}"#)
        #expect(try await ns.read { $0.sequence } == 1)
        // Any other error is the trigger's own failure: refused too, but not as the client's.
        let failed = await #expect(throws: StoreError.self) { try await ns.set("messages/m3", #"{"text":"broken"}"#) }
        #expect(failed?.code == .triggerFailed)
        #expect(failed?.message.contains("an internal detail") == true)
        #expect(try await ns.json("") == #"{"last":"m1","messages":{"m1":{"text":"fine"}}}"#)
        #expect(try await ns.read { $0.sequence } == 1)
    }

    /// The writer keeps the layout of a long derived list and compares later lists with it
    /// rather than checking each path again: a list with a priority is still refused, one at
    /// the root still goes through the overlay, before and after the layout is kept.
    @Test func aKeptLayoutLetsNoPriorityOrRootPathThrough() async throws {
        let temp = try TemporaryStore.with([WideFanout()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        for round in 1...3 {
            let refused = await #expect(throws: StoreError.self) { try await ns.set("fan/p\(round)", #""priority""#) }
            #expect(refused?.code == .invalidWrite)
            #expect(refused?.message.contains("triggers cannot write priorities") == true)
            try await ns.set("fan/n\(round)", #""plain""#)
            #expect(try await ns.json("counts/k7") == "\(round)")
            #expect(try await ns.json("fan/p\(round)") == "null")
        }
        // A derived set of the root replaces everything (the overlay orders it before the
        // counters after it), kept layout or not.
        try await ns.set("fan/r", #""root""#)
        #expect(try await ns.json("counts/k7") == "1")
        #expect(try await ns.json("fan") == "null")
    }

    @Test func aTriggersOwnWritesDoNotTriggerAgain() async throws {
        let temp = try TemporaryStore.with([Echo()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("echo/x", "true")
        #expect(try await ns.json("echo") == #"{"n":1,"x":true}"#)
    }

    @Test func theRulesJudgeOnlyTheClientsPart() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let judged = Mutex<[String]>([])
        let check: WriteAuthorizer = { proposal in
            judged.withLock { $0 += proposal.changes.map(\.path.description) }
            return true
        }
        _ = try await ns.write(Write(.set(path("lists/a/items/1"), try value("1"))), authorize: check)
        #expect(judged.withLock { $0 } == ["/lists/a/items/1"])
        #expect(try await ns.json("counts/a") == "1")
        // A refusal runs no trigger.
        let refuse: WriteAuthorizer = { _ in false }
        await #expect(throws: StoreError.self) {
            try await ns.write(Write(.set(path("lists/a/items/2"), try value("1"))), authorize: refuse)
        }
        #expect(try await ns.json("counts/a") == "1")
    }

    @Test func aTriggerInOneNamespaceOnlyServesIt() async throws {
        var triggers = WriteTriggers()
        try triggers.add(ItemCounter(), in: .namespace("counted"))
        let temp = try TemporaryStore(configuration: StoreConfiguration(triggers: triggers))
        defer { temp.destroy() }
        try await temp.store.namespace("counted").set("lists/a/items/1", "1")
        try await temp.store.namespace("plain").set("lists/a/items/1", "1")
        #expect(try await temp.store.namespace("counted").json("counts/a") == "1")
        #expect(try await temp.store.namespace("plain").json("counts") == "null")
    }

    @Test func badPatternsAndNamesAreRefusedAtRegistration() throws {
        struct Bad: WriteTrigger {
            let pattern: String
            func updates(for change: TriggerChange) throws -> [DerivedUpdate] { [] }
        }
        var triggers = WriteTriggers()
        for pattern in ["/a/$", "/a/$x/$x", "/a/b.c"] {
            #expect(throws: StoreError.self) { try triggers.add(Bad(pattern: pattern)) }
        }
        try triggers.add(RecordingObserver(name: "one"))
        #expect(throws: StoreError.self) { try triggers.add(RecordingObserver(name: "one")) }
        #expect(throws: StoreError.self) { try triggers.add(RecordingObserver(name: "")) }
    }
}
