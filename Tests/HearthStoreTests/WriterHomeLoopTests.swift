import Dispatch
import HearthCore
import Synchronization
import Testing

@testable import HearthStore

/// Event loops run the rounds of the cheap writes they hand over (`WritePass`): the first
/// loop to hand a namespace writer jobs becomes its home, other loops' jobs run there, and a
/// writer whose jobs turned expensive runs them on its own queue again.
@Suite struct WriterHomeLoopTests {
    /// Stands in for an event loop: a serial queue, known by a queue-specific value.
    final class Loop: Sendable {
        static let key = DispatchSpecificKey<String>()
        let name: String
        let queue: DispatchQueue

        init(_ name: String) {
            self.name = name
            queue = DispatchQueue(label: "test.loop.\(name)")
            queue.setSpecific(key: Self.key, value: name)
        }

        var home: WritePass.Home {
            WritePass.Home(id: ObjectIdentifier(self)) { work in self.queue.async(execute: work) }
        }

        /// Runs `body` on the loop, waiting for it.
        func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
            await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: body()) }
            }
        }
    }

    /// Where and when a write's completion ran.
    struct Seen: Sendable {
        var loop: String?
        var beforePassFinished: Bool
        var committed: Bool
    }

    /// Hands `write` over from `loop` in a pass; returns once its completion ran.
    private func write(_ write: Write, to ns: NamespaceStore, from loop: Loop) async -> Seen {
        let seen = Mutex<Seen?>(nil)
        let finished = Atomic<Bool>(false)
        let done = AsyncFlag()
        await loop.run {
            let pass = WritePass(home: loop.home)
            ns.write(write, in: pass) { result in
                let committed = if case .success(.committed) = result { true } else { false }
                seen.withLock {
                    $0 = Seen(
                        loop: DispatchQueue.getSpecific(key: Loop.key),
                        beforePassFinished: !finished.load(ordering: .acquiring),
                        committed: committed
                    )
                }
                done.set()
            }
            pass.finish()
            finished.store(true, ordering: .releasing)
        }
        await done.wait()
        return seen.withLock { $0! }
    }

    private func set(_ where_: String, _ json: String) throws -> Write {
        Write(.set(path(where_), try value(json)))
    }

    /// A store whose writers never find their jobs expensive (a debug build on a busy machine
    /// can take 50 µs for a small write), and whose home loops keep their place however long
    /// they hand nothing (`homeIdleLimit`, nanoseconds).
    private func store(homeIdleLimit: UInt64 = .max) throws -> TemporaryStore {
        var configuration = StoreConfiguration()
        configuration.loopJobLimit = 10_000_000_000
        configuration.homeIdleLimit = homeIdleLimit
        return try TemporaryStore(configuration: configuration)
    }

    /// A store whose writer's jobs turned expensive (a limit of 2 ms, probes every
    /// `probeInterval` nanoseconds): one write of 40,000 leaves from loop "a" takes far more than
    /// 16 × 2 ms, and the average passes the limit.
    private func expensiveWriter(probeInterval: UInt64) async throws -> (TemporaryStore, NamespaceStore, Loop) {
        var configuration = StoreConfiguration()
        configuration.loopJobLimit = 2_000_000
        configuration.loopProbeInterval = probeInterval
        let temp = try TemporaryStore(configuration: configuration)
        let ns = try temp.store.namespace("default")
        let loop = Loop("a")
        let big = "{" + (0..<40_000).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let first = await write(try set("big", big), to: ns, from: loop)
        #expect(first.committed && first.loop == "a")
        #expect(!ns.writer.jobsRunOnLoops, "an expensive writer's jobs leave the loop")
        return (temp, ns, loop)
    }

    /// Holds the lock on the writer's state from another thread, as the queue's round does,
    /// until the semaphore it answers is signalled.
    private func holdTheStateAsTheQueuesRoundDoes(_ ns: NamespaceStore) async -> DispatchSemaphore {
        let (holding, release) = (AsyncFlag(), DispatchSemaphore(value: 0))
        DispatchQueue.global().async {
            ns.writer.inspect { _ in
                holding.set()
                release.wait()
            }
        }
        await holding.wait()
        return release
    }

    @Test func theFirstLoopRunsTheRoundItselfBeforeItsHandOverReturns() async throws {
        let temp = try store()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let loop = Loop("a")

        let seen = await write(try set("rooms/r1", #"{"n":1}"#), to: ns, from: loop)

        #expect(seen.committed)
        #expect(seen.loop == "a")
        #expect(seen.beforePassFinished)
        #expect(try await ns.json("rooms/r1") == #"{"n":1}"#)
    }

    @Test func anotherLoopsWritesRunOnTheHomeLoopInOrder() async throws {
        let temp = try store()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let (home, other) = (Loop("home"), Loop("other"))
        _ = await write(try set("first", "1"), to: ns, from: home)

        let seen = await write(try set("counter", "1"), to: ns, from: other)
        #expect(seen.committed)
        #expect(seen.loop == "home")
        // The other loop's writes keep their order: each sees the one before it.
        for n in 2...20 {
            let step = await write(try set("counter", "\(n)"), to: ns, from: other)
            #expect(step.loop == "home")
        }
        #expect(try await ns.json("counter") == "20")
    }

    /// A home that handed nothing for `homeIdleLimit` (here: none at all) gives way to the loop
    /// that hands jobs now, which runs them itself; writes keep their order across the moves.
    @Test func anIdleHomeGivesWayToTheLoopThatWrites() async throws {
        let temp = try store(homeIdleLimit: 0)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let (first, second) = (Loop("first"), Loop("second"))
        _ = await write(try set("counter", "0"), to: ns, from: first)

        for n in 1...20 {
            let loop = n % 3 == 0 ? first : second
            let seen = await write(try set("counter", "\(n)"), to: ns, from: loop)
            #expect(seen.committed)
            #expect(seen.loop == loop.name, "write \(n) ran where it was handed over")
            #expect(seen.beforePassFinished)
        }
        #expect(try await ns.json("counter") == "20")
    }

    /// A writer whose jobs turned expensive runs them on its queue, but for a probe each
    /// `loopProbeInterval`: cheap on the loop, the probes bring the average down again, and the
    /// loop takes the rounds back. Only the loop's rounds decide: a round on the queue costs more
    /// per job (decision 0002), so jobs that also spin 5 ms of CPU there, and only there, come
    /// back all the same.
    @Test(arguments: [Duration.zero, .milliseconds(5)])
    func aWriterWhoseJobsTurnedExpensiveRunsThemOnItsQueueUntilTheLoopFindsThemCheap(
        queueCost: Duration
    ) async throws {
        let (temp, ns, loop) = try await expensiveWriter(probeInterval: 10_000_000)  // 10 ms
        defer { temp.destroy() }

        let (onQueue, back) = await loop.handJobsUntilTheyRunOnLoops(to: ns.writer, costlyOnTheQueue: queueCost)
        #expect(back, "the writer's jobs came back to the loop (\(onQueue) ran on the queue)")
        #expect(try await ns.json("big/k7") == "7")
    }

    /// A probe that finds the queue's round running measures nothing, so the writer's next job
    /// probes at once, not a whole `loopProbeInterval` later.
    @Test func aProbeThatFindsTheQueuesRoundRunningLeavesTheNextJobToProbe() async throws {
        let (temp, ns, loop) = try await expensiveWriter(probeInterval: 2_000_000_000)  // 2 s
        defer { temp.destroy() }
        try await Task.sleep(for: .milliseconds(2_100))  // a probe is due

        // The queue's round, as far as the lock on the writer's state goes: the probe finds it.
        let release = await holdTheStateAsTheQueuesRoundDoes(ns)
        let done = AsyncFlag()
        let lost = try set("p", "1")
        await loop.run {
            let pass = WritePass(home: loop.home)
            ns.write(lost, in: pass) { _ in done.set() }
            pass.finish()
        }
        release.signal()
        await done.wait()

        let next = await write(try set("p", "2"), to: ns, from: loop)
        #expect(next.committed)
        #expect(next.loop == "a", "the next job was the probe, run on the loop")
        #expect(try await ns.json("p") == "2")
    }

    @Test func aLoopThatFindsTheWriterInTheQueuesRoundLeavesItsJobsToTheQueue() async throws {
        let temp = try store()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let loop = Loop("a")
        let write = try set("z", "1")
        // The queue's round, as far as the lock on the writer's state goes.
        let release = await holdTheStateAsTheQueuesRoundDoes(ns)

        let seen = Mutex<String??>(nil)
        let done = AsyncFlag()
        await loop.run {
            let pass = WritePass(home: loop.home)
            ns.write(write, in: pass) { result in
                if case .success(.committed) = result {
                    seen.withLock { $0 = .some(DispatchQueue.getSpecific(key: Loop.key)) }
                }
                done.set()
            }
            pass.finish()
        }
        // The loop went on: its write waits for the lock on the queue, not on the loop.
        #expect(seen.withLock { $0 } == nil)
        release.signal()
        await done.wait()

        #expect(seen.withLock { $0 } == .some(nil), "committed, and not on the loop")
        #expect(try await ns.json("z") == "1")
    }

    @Test func withSyncAlwaysEveryRoundStaysOnTheQueue() async throws {
        let temp = try TemporaryStore(configuration: StoreConfiguration(syncMode: .always))
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")

        let seen = await write(try set("x", "1"), to: ns, from: Loop("a"))

        #expect(seen.committed)
        #expect(seen.loop == nil)
        #expect(try await ns.json("x") == "1")
    }

    @Test func writesOutsideACollectGoToTheQueue() async throws {
        let temp = try store()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let loop = Loop("a")
        let write = try set("y", "1")

        let seen = await loop.run {
            let ran = Mutex<String?>(nil)
            let finished = DispatchSemaphore(value: 0)
            ns.write(write) { _ in
                ran.withLock { $0 = DispatchQueue.getSpecific(key: Loop.key) ?? "queue" }
                finished.signal()
            }
            finished.wait()
            return ran.withLock { $0 }
        }
        #expect(seen == "queue")
    }
}

extension WriterHomeLoopTests.Loop {
    /// Hands `writer` one job at a time from this loop until its jobs run on loops again, for at
    /// most 30 s (a job goes to the loop when it is a probe, else to the queue; one at a time,
    /// a probe never races the queue's round, which on a busy machine it can lose every time);
    /// each job spins `cost` of CPU time when it runs on the writer's queue. Answers how many jobs ran on the queue, and
    /// whether the loops took the writer's jobs back.
    func handJobsUntilTheyRunOnLoops(
        to writer: NamespaceWriter,
        costlyOnTheQueue cost: Duration
    ) async -> (onQueue: Int, back: Bool) {
        var onQueue = 0
        let deadline = ContinuousClock.now + .seconds(30)
        while !writer.jobsRunOnLoops, ContinuousClock.now < deadline {
            let ran = await pass(of: 1, to: writer, costlyOnTheQueue: cost)
            onQueue += ran.filter { !$0 }.count
        }
        return (onQueue, writer.jobsRunOnLoops)
    }

    /// One pass of `count` jobs; answers, for each, whether it ran on the loop.
    private func pass(of count: Int, to writer: NamespaceWriter, costlyOnTheQueue cost: Duration) async -> [Bool] {
        let ran = Mutex<[Bool]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                let pass = WritePass(home: self.home)
                for _ in 0..<count {
                    writer.perform(
                        in: pass,
                        { _ -> Bool in
                            let onLoop = DispatchQueue.getSpecific(key: Self.key) != nil
                            if !onLoop {
                                let until = NamespaceWriter.threadCPUTime() + UInt64(cost.nanoseconds)
                                while NamespaceWriter.threadCPUTime() < until {}
                            }
                            return onLoop
                        },
                        completion: { result in
                            let done = ran.withLock { ran -> Bool in
                                ran.append((try? result.get()) ?? false)
                                return ran.count == count
                            }
                            if done { continuation.resume() }
                        }
                    )
                }
                pass.finish()
            }
        }
        return ran.withLock { $0 }
    }
}

/// Set once; waited for by one task.
private final class AsyncFlag: Sendable {
    private let state = Mutex<(set: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func set() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.set = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.set { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
