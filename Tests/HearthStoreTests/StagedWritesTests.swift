import HearthCore
import Synchronization
import Testing

@testable import HearthStore

/// Writes the writer takes in one round: staged together when they cannot see one another,
/// applied one after another when they can.
@Suite struct StagedWritesTests {
    @Test func disjointWritesOfOneRoundAreStagedAndNumberedInOrder() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let writes = try (0..<5).map { Write(.set(path("rooms/r\($0)"), try value(#"{"n":\#($0)}"#))) }
        let results = try await ns.writeInOneRound(writes).map { try $0.get() }
        let sequences = results.map { result -> UInt64 in if case .committed(let s, _) = result { s } else { 0 } }
        #expect(sequences == [1, 2, 3, 4, 5])
        #expect(temp.probe.groupsApplied == 1)
        #expect(try await ns.json("rooms") == #"{"r0":{"n":0},"r1":{"n":1},"r2":{"n":2},"r3":{"n":3},"r4":{"n":4}}"#)
        #expect(try await ns.read { $0.sequence } == 5)
        try temp.reopen()
        let reopened = try temp.store.namespace("default")
        #expect(try await reopened.read { $0.sequence } == 5)
        #expect(try await reopened.json("rooms/r4") == #"{"n":4}"#)
    }

    struct InjectedFailure: Error {}

    @Test func aGroupLevelDBRefusesFailsEveryWriteInItAndChangesNothing() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let announced = Mutex<[UInt64]>([])
        ns.observeCommits { commit in announced.withLock { $0.append(commit.sequence) } }
        try await ns.set("before", "1")
        let probe = temp.probe
        let writes = try (0..<3).map { Write(.set(path("lost/w\($0)"), try value("\($0)"))) }
        let results = try await ns.writeInOneRound(writes) { probe.failNextGroup(with: InjectedFailure()) }
        for result in results {
            #expect(throws: InjectedFailure.self) { try result.get() }
        }
        #expect(try await ns.json("lost") == "null")
        #expect(announced.withLock { $0 } == [1])
        // The sequence numbers the failed writes took are given out again, once.
        let next = try await ns.set("after", "2")
        #expect(next == .committed(sequence: 2, values: [.leaf(.number(2), priority: nil)]))
        #expect(announced.withLock { $0 } == [1, 2])
        #expect(try await ns.read { $0.sequence } == 2)
    }

    /// A check like the rules': allows a write under `rooms/R` when `members/R/ada` exists,
    /// reading through the proposal's reader and noting the read (unless `reports` is false).
    static func membershipCheck(reports: Bool) -> WriteAuthorizer {
        { proposal in
            let room = proposal.location.keys[1]
            let member = DataPath(keys: [ChildKey("members"), room, ChildKey("ada")])
            if reports { proposal.reads?.note(member) }
            let allowed = proposal.reader.node(at: member) != nil
            if reports { proposal.reads?.isComplete = true }
            return allowed
        }
    }

    @Test(arguments: [true, false])
    func aJudgedWriteSeesTheStagedWritesItsCheckReads(reports: Bool) async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let check = Self.membershipCheck(reports: reports)
        let results = try await ns.writeInOneRound(
            [Write(.set(path("members/r1/ada"), try value("true")))],
            then: [(Write(.set(path("rooms/r1/m1"), try value(#""hi""#))), check)]
        )
        // Judged before the staged membership it would be refused.
        for result in results { _ = try result.get() }
        #expect(try await ns.json("rooms") == #"{"r1":{"m1":"hi"}}"#)
    }

    @Test func judgedWritesThatReadNothingStagedAreStagedToo() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("members", #"{"r1":{"ada":true},"r2":{"ada":true}}"#)
        let check = Self.membershipCheck(reports: true)
        let groups = temp.probe.groupsApplied
        let results = try await ns.writeInOneRound(
            [],
            then: try (0..<4).map { (Write(.set(path("rooms/r\($0 % 2 + 1)/m\($0)"), try value("\($0)"))), check) }
        )
        for result in results { _ = try result.get() }
        #expect(temp.probe.groupsApplied == groups + 1)
        #expect(try await ns.json("rooms") == #"{"r1":{"m0":0,"m2":2},"r2":{"m1":1,"m3":3}}"#)
        // And one the check refuses is refused.
        let refused = try await ns.writeInOneRound([], then: [(Write(.set(path("rooms/r3/m"), try value("1"))), check)])
        #expect(throws: StoreError.self) { try refused[0].get() }
    }

    @Test func aWriteBelowAStagedLeafSeesIt() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        // Planned against the state before the round, the second set would keep the leaf.
        let writes = [
            Write(.set(path("x"), try value("5"))),
            Write(.set(path("x/b"), try value("2"))),
        ]
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        #expect(try await ns.json("") == #"{"x":{"b":2}}"#)
    }

    @Test func anIncrementAfterAStagedSetCountsFromIt() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let writes = [
            Write(.set(path("n"), try value("10"))),
            Write(.set(path("n"), try value(#"{".sv":{"increment":1}}"#))),
            Write(.set(path("n"), try value(#"{".sv":{"increment":1}}"#))),
        ]
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        #expect(try await ns.json("n") == "12")
    }

    @Test func anETagAfterAStagedSetIsComparedWithIt() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let etag = ValueHash.hash(Node.leaf(.number(1), priority: nil))
        let writes = [
            Write(.set(path("n"), try value("1"))),
            Write(.set(path("n"), try value("2")), ifMatch: etag),
        ]
        let results = try await ns.writeInOneRound(writes).map { try $0.get() }
        guard case .committed = results[1] else {
            Issue.record("the transaction failed against the state before the round: \(results[1])")
            return
        }
        #expect(try await ns.json("n") == "2")
    }

    @Test func twoWritesIntoOneIndexedChildKeepItsIndexEntryCurrent() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let spec = IndexSpec(location: [.key(ChildKey("list"))], indexed: .child(path("v")))
        try await ns.setIndexes([spec])
        try await ns.set("list", #"{"c1":{"v":5},"c2":{"v":3}}"#)
        // Both re-derive c1's index entry; the second must see the first's new `v`.
        let writes = [
            Write(.set(path("list/c1/v"), try value("1"))),
            Write(.set(path("list/c1/w"), try value("2"))),
        ]
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        let ordered = try await ns.read { try $0.query(at: path("list"), Query(order: .child(path("v")))) }
        #expect(ordered.map(\.key.string) == ["c1", "c2"])
    }
}
