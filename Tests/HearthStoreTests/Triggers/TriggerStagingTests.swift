import HearthCore
import Testing

@testable import HearthStore

/// Triggered writes among the writes of one round: staged together when neither they nor
/// their triggers can see what the others staged, planned again after a flush when they can.
@Suite(.timeLimit(.minutes(3))) struct TriggerStagingTests {
    @Test func triggeredWritesOfOneRoundCountEveryItemExactly() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        // Six items into two lists in one round: each pair shares a counter.
        let writes = try (0..<6).map { Write(.set(path("lists/l\($0 % 2)/items/i\($0)"), try value("true"))) }
        let results = try await ns.writeInOneRound(writes).map { try $0.get() }
        let sequences = results.map { result -> UInt64 in if case .committed(let s, _) = result { s } else { 0 } }
        #expect(sequences == [1, 2, 3, 4, 5, 6])
        #expect(try await ns.json("counts") == #"{"l0":3,"l1":3}"#)
    }

    @Test func triggeredWritesThatShareNothingAreStagedTogether() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("seed", "1")
        let groups = temp.probe.groupsApplied
        let writes = try (0..<4).map { Write(.set(path("lists/l\($0)/items/i"), try value("true"))) }
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        #expect(temp.probe.groupsApplied == groups + 1)
        #expect(try await ns.json("counts") == #"{"l0":1,"l1":1,"l2":1,"l3":1}"#)
    }

    @Test func aTriggerReadingWhatTheRoundStagedSeesIt() async throws {
        let temp = try TemporaryStore.with([Stamper()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("config/stamp", "1")
        let writes = [
            Write(.set(path("config/stamp"), try value("2"))),
            Write(.set(path("stamped/a"), try value(#"{"t":"x"}"#))),
        ]
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        #expect(try await ns.json("stamped/a") == #"{"stamp":2,"t":"x"}"#)
    }

    @Test func aWriteIntoWhatATriggerDerivedInTheRoundSeesIt() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let writes = [
            Write(.set(path("lists/a/items/1"), try value("true"))),
            Write(.set(path("counts/a"), try value(#"{".sv":{"increment":10}}"#))),
        ]
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        #expect(try await ns.json("counts/a") == "11")
    }

    /// A derived increment adds to the writer's remembered value of the counter: whatever
    /// else set the counter in between (a client's set, in its own round or staged in the
    /// same one as the triggered write) must be what it adds to.
    @Test func aDerivedIncrementAddsToTheCountersLatestValue() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("lists/a/items/1", "true")
        try await ns.set("lists/a/items/2", "true")
        #expect(try await ns.json("counts/a") == "2")
        try await ns.set("counts/a", "10")
        try await ns.set("lists/a/items/3", "true")
        #expect(try await ns.json("counts/a") == "11")
        let writes = [
            Write(.set(path("counts/a"), try value("20"))),
            Write(.set(path("lists/a/items/4"), try value("true"))),
            Write(.set(path("lists/a/items/5"), try value("true"))),
        ]
        for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
        #expect(try await ns.json("counts/a") == "22")
        try await ns.set("counts", "null")
        try await ns.set("lists/a/items/6", "true")
        #expect(try await ns.json("counts/a") == "1")
    }

    @Test func aRefusedGroupTakesTheDerivedUpdatesWithIt() async throws {
        let temp = try TemporaryStore.with([ItemCounter()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("seed", "1")
        let probe = temp.probe
        let writes = try (0..<3).map { Write(.set(path("lists/l\($0)/items/i"), try value("true"))) }
        let results = try await ns.writeInOneRound(writes) {
            probe.failNextGroup(with: StagedWritesTests.InjectedFailure())
        }
        for result in results {
            #expect(throws: StagedWritesTests.InjectedFailure.self) { try result.get() }
        }
        #expect(try await ns.json("") == #"{"seed":1}"#)
        try await ns.set("lists/l0/items/i", "true")
        #expect(try await ns.json("counts") == #"{"l0":1}"#)
        #expect(try await ns.read { $0.sequence } == 2)
    }
}
