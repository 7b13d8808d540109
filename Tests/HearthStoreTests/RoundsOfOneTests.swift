import HearthCore
import Testing

@testable import HearthStore

/// A writer's queued rounds take one expensive job at a time once its grouped rounds showed such
/// jobs sharing nothing, and group them again once they share hot locations (`RoundsOfOne`).
@Suite struct RoundsOfOneTests {
    /// A write of `count` leaves under `base` (one batch of more than
    /// `StagedWrites.largeGroupOperations` puts when `count` is 300).
    static func large(_ base: String, count: Int = 300) throws -> Write {
        Write(.update(path(base), try (0..<count).map { UpdateEntry(path: path("k\($0)"), value: try value("\($0)")) }))
    }

    /// 300 counters under `base`, each incremented by one.
    static func counters(_ base: String) -> Write {
        Write(.update(path(base), (0..<300).map { .increment(path("c\($0)"), by: 1) }))
    }

    @Test func disjointLargeWritesGoOneARoundOnceAGroupedRoundShowedThemDisjoint() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        #expect(!ns.writer.takesRoundsOfOne)
        // Grouped (the writer knows nothing yet): one group, and what it learns.
        let first = try await ns.writeInOneRound([try Self.large("a"), try Self.large("b")])
        for result in first { _ = try result.get() }
        #expect(temp.probe.groupsApplied == 1)
        #expect(ns.writer.takesRoundsOfOne)
        // Three more, queued together: a round each.
        let before = temp.probe.groupsApplied
        let second = try await ns.writeInOneRound([try Self.large("c"), try Self.large("d"), try Self.large("e")])
        for result in second { _ = try result.get() }
        #expect(temp.probe.groupsApplied - before == 3)
        #expect(try await ns.json("e/k299") == "299")
    }

    @Test func largeWritesThatShareCountersStayGrouped() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        // Disjoint first: rounds of one.
        _ = try await ns.writeInOneRound([try Self.large("a"), try Self.large("b")])
        #expect(ns.writer.takesRoundsOfOne)
        // The counters written twice, so the writer plans their next increments from memory.
        try await ns.write(Self.counters("hot"))
        try await ns.write(Self.counters("hot"))
        // Queued together while rounds take one job: the 64th round groups them anyway, so
        // send enough of them that one such round sees two of them share the counters.
        var results: [Result<WriteResult, Error>] = []
        for _ in 0..<3 {
            results += try await ns.writeInOneRound(Array(repeating: Self.counters("hot"), count: 40))
            if !ns.writer.takesRoundsOfOne { break }
        }
        for result in results { _ = try result.get() }
        #expect(!ns.writer.takesRoundsOfOne)
        // Grouped again: 20 increments of the counters in one group.
        let before = temp.probe.groupsApplied
        let grouped = try await ns.writeInOneRound(Array(repeating: Self.counters("hot"), count: 20))
        for result in grouped { _ = try result.get() }
        #expect(temp.probe.groupsApplied - before == 1)
        #expect(try await ns.json("hot/c7") == "\(2 + results.count + 20)")
    }
}
