import Dispatch
import HearthCore
import Synchronization
import Testing

@testable import HearthStore

/// A writer hands each round's staged group to its committer and plans the next round while the
/// group is written (`CommitInFlight`, decision 0030). These tests hold the committer inside
/// LevelDB's write of a group and check what the next round may and may not do meanwhile.
@Suite struct PipelinedCommitTests {
    struct InjectedFailure: Error {}

    /// Holds the next staged group's write until released, then writes it or fails it.
    final class CommitGate: Sendable {
        private let state = Mutex<(armed: Bool, holding: Bool, failure: (any Error)?)>((false, false, nil))
        private let released = DispatchSemaphore(value: 0)

        func arm() { state.withLock { $0.armed = true } }

        /// True while the committer waits inside the held write.
        var isHolding: Bool { state.withLock { $0.holding } }

        func release(failing failure: (any Error)? = nil) {
            state.withLock { $0.failure = failure }
            released.signal()
        }

        func configuration() -> StoreConfiguration {
            var configuration = StoreConfiguration()
            configuration.batchWriter = { [self] db in
                let inner = BatchWriter.levelDB(db)
                return BatchWriter { batch, kind in
                    let holds = self.state.withLock { state -> Bool in
                        guard kind == .stagedGroup, state.armed else { return false }
                        state.armed = false
                        state.holding = true
                        return true
                    }
                    if holds {
                        self.released.wait()
                        let failure = self.state.withLock { state -> (any Error)? in
                            state.holding = false
                            return state.failure
                        }
                        if let failure { throw failure }
                    }
                    try inner.write(batch, kind)
                }
            }
            return configuration
        }
    }

    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .relaxed) }
        var isSet: Bool { value.load(ordering: .relaxed) }
    }

    /// Sets `flag` when a write's check runs on the writer (its round is planning it); reads
    /// nothing, and says so.
    static func noting(_ flag: Flag) -> WriteAuthorizer {
        { proposal in
            flag.set()
            proposal.reads?.isComplete = true
            return true
        }
    }

    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }

    @Test func aWriteInsideTheGroupInFlightWaitsForItsWriteAndIsPlannedAgainstIt() async throws {
        let gate = CommitGate()
        let temp = try TemporaryStore(configuration: gate.configuration())
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("warm", "1")  // the namespace exists: its first write is not handed over
        gate.arm()
        let first = Mutex<Result<WriteResult, Error>?>(nil)
        ns.write(Write(.set(path("rooms/a/x"), try value("1")))) { result in first.withLock { $0 = result } }
        try await Self.until { gate.isHolding }
        // Replaces `rooms/a`, which holds the write in flight: planned against a snapshot
        // without it, it would leave `x` behind.
        let second = Mutex<Result<WriteResult, Error>?>(nil)
        ns.write(Write(.set(path("rooms/a"), try value(#"{"y":2}"#)))) { result in second.withLock { $0 = result } }
        try await Task.sleep(for: .milliseconds(150))
        #expect(first.withLock { $0 } == nil)
        #expect(second.withLock { $0 } == nil)
        gate.release()
        try await Self.until { second.withLock { $0 } != nil }
        #expect(try first.withLock { $0 }?.get() == .committed(sequence: 2, values: [.leaf(.number(1), priority: nil)]))
        #expect(try second.withLock { $0 }?.get() != nil)
        #expect(try await ns.json("rooms") == #"{"a":{"y":2}}"#)
        #expect(try await ns.read { $0.sequence } == 3)
    }

    @Test func aDisjointWriteIsPlannedWhileTheGroupIsInFlightAndAcknowledgedAfterIt() async throws {
        let gate = CommitGate()
        let temp = try TemporaryStore(configuration: gate.configuration())
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let announced = Mutex<[UInt64]>([])
        ns.observeCommits { commit in announced.withLock { $0.append(commit.sequence) } }
        try await ns.set("warm", "1")
        gate.arm()
        let done = Mutex<[String]>([])
        ns.write(Write(.set(path("rooms/a"), try value("1")))) { _ in done.withLock { $0.append("a") } }
        try await Self.until { gate.isHolding }
        let planned = Flag()
        ns.write(Write(.set(path("rooms/b"), try value("2"))), authorize: Self.noting(planned)) { _ in
            done.withLock { $0.append("b") }
        }
        // The second round plans `b` while `a` is still being written.
        try await Self.until { planned.isSet }
        try await Task.sleep(for: .milliseconds(50))
        #expect(done.withLock { $0 }.isEmpty)
        #expect(announced.withLock { $0 } == [1])
        gate.release()
        try await Self.until { done.withLock { $0 }.count == 2 }
        #expect(done.withLock { $0 } == ["a", "b"])
        #expect(announced.withLock { $0 } == [1, 2, 3])
        #expect(try await ns.json("rooms") == #"{"a":1,"b":2}"#)
    }

    @Test func whenTheGroupInFlightFailsTheWritesPlannedOnTopOfItFailWithIt() async throws {
        let gate = CommitGate()
        let temp = try TemporaryStore(configuration: gate.configuration())
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let announced = Mutex<[UInt64]>([])
        ns.observeCommits { commit in announced.withLock { $0.append(commit.sequence) } }
        // A hot counter: once written, the writer plans its next increments from its memory.
        let increment = Write(.update(.root, [.increment(path("count"), by: 1)]))
        try await ns.write(increment)
        gate.arm()
        let results = Mutex<[String: Result<WriteResult, Error>]>([:])
        ns.write(increment) { result in results.withLock { $0["first"] = result } }
        try await Self.until { gate.isHolding }
        let planned = Flag()
        ns.write(increment, authorize: Self.noting(planned)) { result in
            results.withLock { $0["second"] = result }
        }
        // Planned on top of the first, from memory, while the first is being written.
        try await Self.until { planned.isSet }
        gate.release(failing: InjectedFailure())
        try await Self.until { results.withLock { $0.count } == 2 }
        let outcome = results.withLock { $0 }
        #expect(throws: InjectedFailure.self) { try outcome["first"]?.get() }
        #expect(throws: InjectedFailure.self) { try outcome["second"]?.get() }
        #expect(announced.withLock { $0 } == [1])
        #expect(try await ns.json("count") == "1")
        // Nothing of either is remembered: the sequence numbers and the counter go on from 1.
        #expect(try await ns.write(increment) == .committed(sequence: 2, values: [.leaf(.number(2), priority: nil)]))
        #expect(try await ns.json("count") == "2")
        #expect(try await ns.read { $0.sequence } == 2)
        #expect(announced.withLock { $0 } == [1, 2])
    }

    @Test func withoutPipelinedCommitsTheWriterWritesItsOwnGroup() async throws {
        let gate = CommitGate()
        var configuration = gate.configuration()
        configuration.pipelinesCommits = false
        let temp = try TemporaryStore(configuration: configuration)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("warm", "1")
        gate.arm()
        let done = Flag()
        ns.write(Write(.set(path("rooms/a"), try value("1")))) { _ in done.set() }
        try await Self.until { gate.isHolding }
        // The writer itself is held inside the write: a second write is not planned meanwhile.
        let planned = Flag()
        ns.write(Write(.set(path("rooms/b"), try value("2"))), authorize: Self.noting(planned)) { _ in }
        try await Task.sleep(for: .milliseconds(150))
        #expect(!planned.isSet)
        gate.release()
        try await Self.until { planned.isSet && done.isSet }
    }
}
