import HearthCore
import Testing

@testable import HearthStore

/// After-commit observers: fed every commit in order from a durable cursor, across restarts.
@Suite(.timeLimit(.minutes(3))) struct CommitObserverTests {
    @Test func anObserverGetsEveryCommitInOrderIncludingDerivedUpdates() async throws {
        let observer = RecordingObserver()
        let temp = try TemporaryStore.with([ItemCounter()], observers: [observer])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("lists/a/items/1", "true")
        _ = try await ns.update("", [("x", "1"), ("y", "null")])
        try await ns.set("x/.priority", "3")
        await observer.waitFor(3)
        let commits = observer.commits
        #expect(commits.map(\.sequence) == [1, 2, 3])
        #expect(
            commits[0]
                == CommittedWrite(
                    sequence: 1,
                    location: .root,
                    kind: .update([
                        (path("lists/a/items/1"), .leaf(.bool(true), priority: nil)),
                        (path("counts/a"), .leaf(.number(1), priority: nil)),
                    ])
                )
        )
        #expect(
            commits[1]
                == CommittedWrite(
                    sequence: 2,
                    location: .root,
                    kind: .update([(path("x"), .leaf(.number(1), priority: nil)), (path("y"), nil)])
                )
        )
        #expect(
            commits[2]
                == CommittedWrite(
                    sequence: 3,
                    location: path("x/.priority"),
                    kind: .set(.leaf(.number(3), priority: nil))
                )
        )
    }

    @Test func aRestartReplaysFromTheCursorAndTheLogIsTrimmed() async throws {
        // The observer fails on commit 2: its cursor stays at 1 when the store closes.
        let failing = RecordingObserver(name: "mailer", failing: [2])
        let temp = try TemporaryStore.with([], observers: [failing])
        defer { temp.destroy() }
        var ns = try temp.store.namespace("default")
        for n in 1...3 { try await ns.set("m\(n)", "\(n)") }
        await failing.waitFor(1)
        #expect(failing.commits.map(\.sequence) == [1])
        // Reopened with a healthy observer of the same name: commits 2 and 3 come again.
        let healthy = RecordingObserver(name: "mailer")
        try temp.reopen(triggers: .with([], observers: [healthy]))
        ns = try temp.store.namespace("default")
        await healthy.waitFor(2)
        try await ns.set("m4", "4")
        await healthy.waitFor(3)
        #expect(healthy.commits.map(\.sequence) == [2, 3, 4])
        #expect(
            healthy.commits.first
                == CommittedWrite(sequence: 2, location: path("m2"), kind: .set(.leaf(.number(2), priority: nil)))
        )
        // Everything handled: reopened again, nothing is handed over twice and the log is empty.
        let later = RecordingObserver(name: "mailer")
        try temp.reopen(triggers: .with([], observers: [later]))
        ns = try temp.store.namespace("default")
        try await ns.set("m5", "5")
        await later.waitFor(1)
        #expect(later.commits.map(\.sequence) == [5])
        try await Self.waitUntilLogEmpty(ns)
    }

    @Test func aNewObserverStartsAfterTheLastCommit() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        var ns = try temp.store.namespace("default")
        try await ns.set("before", "1")
        let observer = RecordingObserver(name: "late")
        try temp.reopen(triggers: .with([], observers: [observer]))
        ns = try temp.store.namespace("default")
        try await ns.set("after", "2")
        await observer.waitFor(1)
        #expect(observer.commits.map(\.sequence) == [2])
    }

    @Test func twoObserversKeepTheLogUntilBothHandledIt() async throws {
        let fast = RecordingObserver(name: "fast")
        let slow = RecordingObserver(name: "slow", failing: [1])
        let temp = try TemporaryStore.with([], observers: [fast, slow])
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("a", "1")
        await fast.waitFor(1)
        // `slow` has not handled commit 1: it stays in the log, and is handed over again at
        // the next start, before the namespace is used.
        #expect(try Self.loggedSequences(ns) == [1])
        let again = RecordingObserver(name: "slow")
        try temp.reopen(triggers: .with([], observers: [RecordingObserver(name: "fast"), again]))
        await again.waitFor(1)
        #expect(again.commits.map(\.sequence) == [1])
        try await Self.waitUntilLogEmpty(try temp.store.namespace("default"))
    }

    static func loggedSequences(_ ns: NamespaceStore) throws -> [UInt64] {
        try ns.readNow { reader in
            var sequences: [UInt64] = []
            let prefix = ns.keys.commitLogPrefix
            reader.scan(prefix) { key, _ in sequences.append(KeySpace.decodeSequence(Array(key)[prefix.count...])) }
            return sequences
        }
    }

    /// The trim runs on the observer's queue just after its cursor is saved: wait for it,
    /// one read per commit-free yield, at most 1,000 times.
    static func waitUntilLogEmpty(_ ns: NamespaceStore) async throws {
        for _ in 0..<1_000 {
            if try loggedSequences(ns).isEmpty { return }
            await Task.yield()
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("the commit log still holds \(try loggedSequences(ns))")
    }
}
