import HearthCore
import Synchronization
import Testing

@testable import HearthStore

/// Queues a job per new item in queue "items" (payload: the item's key); refuses an item whose
/// value is "refused" after queueing (so the job must not commit); queues in "notes" too when the
/// item is "noted" (no derived update: a job alone).
struct ItemJobs: WriteTrigger {
    var pattern: String { "/items/$item" }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        guard change.before == nil, let after = change.after else { return [] }
        let key = change.wildcards["item"]!
        change.queue(ServerJob(queue: "items", payload: Array(key.utf8)))
        if after == .leaf(.string("refused"), priority: nil) { throw WriteRefusal("refused item") }
        if after == .leaf(.string("noted"), priority: nil) {
            change.queue(ServerJob(queue: "notes", payload: Array(key.utf8)))
            return []
        }
        return [.increment(DataPath(keys: [ChildKey("count")]), by: 1)]
    }
}

/// Jobs queued by triggers: stored in the write's own commit, in commit order, for their
/// consumers to read and remove.
@Suite(.timeLimit(.minutes(3))) struct ServerJobTests {
    @Test func aJobCommitsWithItsWriteAndNeverWithoutIt() async throws {
        let temp = try TemporaryStore.with([ItemJobs()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("items/a", "1")
        try await ns.set("items/b", #""noted""#)
        await #expect(throws: StoreError.self) { try await ns.set("items/c", #""refused""#) }
        // Two in one multi-path update: one commit, two jobs in the order queued.
        _ = try await ns.update("items", [("d", "2"), ("e", "3")])
        let items = try ns.jobs(in: "items", limit: 10)
        #expect(items.map { String(decoding: $0.payload, as: UTF8.self) } == ["a", "b", "d", "e"])
        let order = items.compactMap { JobKey.commitOrder(of: $0.key) }
        #expect(order.count == 4)
        #expect(order[2].sequence == order[3].sequence)
        #expect(order[2].index == 0 && order[3].index == 1)
        #expect(order[0].sequence < order[1].sequence && order[1].sequence < order[2].sequence)
        #expect(try ns.jobs(in: "notes", limit: 10).map(\.payload) == [Array("b".utf8)])
        #expect(try ns.jobQueues() == ["items", "notes"])
        #expect(try await ns.json("items/c") == "null")
        #expect(try await ns.json("count") == "3")
    }

    @Test func consumersPageRemoveAndPutJobsAtomically() async throws {
        let temp = try TemporaryStore.with([ItemJobs()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        for key in ["a", "b", "c"] { try await ns.set("items/\(key)", "1") }
        let first = try ns.jobs(in: "items", limit: 2)
        #expect(first.count == 2)
        let rest = try ns.jobs(in: "items", after: first.last!.key, limit: 10)
        #expect(rest.map(\.payload) == [Array("c".utf8)])
        try ns.changeJobs([
            .remove(queue: "items", key: first[0].key),
            .put(queue: "followups", key: [0xFF, 1], payload: [7]),
            .put(queue: "followups", key: [0x00], payload: [8]),
        ])
        #expect(try ns.jobs(in: "items", limit: 10).count == 2)
        #expect(try ns.jobs(in: "followups", limit: 10).map(\.payload) == [[8], [7]])
        #expect(try ns.jobQueues() == ["followups", "items"])
        #expect(throws: StoreError.self) { try ns.changeJobs([.remove(queue: "", key: [1])]) }
        // Jobs outlive the process's store: read again after a reopen.
        try temp.reopen()
        let reopened = try temp.store.namespace("default")
        #expect(try reopened.jobs(in: "items", limit: 10).map(\.payload) == [Array("b".utf8), Array("c".utf8)])
    }

    @Test func aServerWriteQueuesItsOwnJobsBeforeItsTriggers() async throws {
        let temp = try TemporaryStore.with([ItemJobs()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        var write = Write(.set(path("items/a"), try value("1")))
        write.jobs = [ServerJob(queue: "items", payload: Array("own".utf8))]
        _ = try await ns.write(write)
        #expect(try ns.jobs(in: "items", limit: 10).map(\.payload) == [Array("own".utf8), Array("a".utf8)])
        // A refused write queues none of its own either.
        var refused = Write(.set(path("items/b"), try value(#""refused""#)))
        refused.jobs = [ServerJob(queue: "items", payload: Array("lost".utf8))]
        await #expect(throws: StoreError.self) { try await ns.write(refused) }
        #expect(try ns.jobs(in: "items", limit: 10).count == 2)
    }

    @Test func commitsThatQueuedJobsSayInWhichQueues() async throws {
        let temp = try TemporaryStore.with([ItemJobs()])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let seen = Mutex<[[String]]>([])
        ns.observeCommits { commit in seen.withLock { $0.append(commit.jobQueues) } }
        try await ns.set("items/a", "1")
        try await ns.set("other", "1")
        _ = try await ns.update("items", [("d", "2"), ("e", "3")])
        var twoQueues = Write(.set(DataPath("items", "f"), NewValue(node: .leaf(.string("4"), priority: nil))))
        twoQueues.jobs = [ServerJob(queue: "other", payload: [1])]
        _ = try await ns.write(twoQueues)
        // Each queue once, whatever the number of its jobs.
        #expect(seen.withLock { $0 } == [["items"], [], ["items"], ["other", "items"]])
    }
}
