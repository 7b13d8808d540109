import Dispatch
import Foundation
import HearthTestSupport
import Synchronization
import Testing

@testable import HearthStore

/// A writer's queued rounds run on one thread of its own while it has work, once per wake, never
/// two at a time, and the thread ends when idle.
@Suite struct WriterThreadTests {
    final class Runs: Sendable {
        let count = Atomic<Int>(0)
        let inside = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        /// Threads that ran a body, each numbered the first time it does.
        let threadsSeen = Atomic<Int>(0)
        let names = Mutex<Set<String>>([])

        func run() {
            if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                overlapped.store(true, ordering: .relaxed)
            }
            let thread = Thread.current
            if thread.threadDictionary["WriterThreadTests"] == nil {
                thread.threadDictionary["WriterThreadTests"] = threadsSeen.add(1, ordering: .relaxed).newValue
            }
            names.withLock { _ = $0.insert(thread.name ?? "") }
            count.add(1, ordering: .relaxed)
            inside.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    @Test func wakesRunOnOneNamedThreadWhileItHasWork() async throws {
        // An idle limit no pause between the wakes reaches, however loaded the machine.
        let thread = WriterThread(idleLimit: .seconds(60))
        let runs = Runs()
        for _ in 0..<50 {
            thread.wake { runs.run() }
            try await Task.sleep(for: .milliseconds(1))
        }
        try await eventually(timeout: .seconds(60), interval: .milliseconds(5)) {
            runs.count.load(ordering: .relaxed) == 50
        }
        let threadsSeen = runs.threadsSeen.load(ordering: .relaxed)
        #expect(threadsSeen == 1)
        #expect(runs.names.withLock { $0 } == ["hearth-writer"])
    }

    /// Wakes from several threads while the thread keeps ending on a 1 ms idle limit: every wake
    /// runs its body once, and no two run at once.
    @Test func noWakeIsLostWhileTheThreadEndsAndStartsAgain() async throws {
        let thread = WriterThread(idleLimit: .milliseconds(1))
        let runs = Runs()
        let wakers = 4
        let perWaker = 400
        await withTaskGroup(of: Void.self) { group in
            for waker in 0..<wakers {
                group.addTask {
                    for index in 0..<perWaker {
                        thread.wake { runs.run() }
                        if (index + waker) % 7 == 0 { try? await Task.sleep(for: .milliseconds(2)) }
                    }
                }
            }
        }
        try await eventually(timeout: .seconds(60), interval: .milliseconds(5)) {
            runs.count.load(ordering: .relaxed) == wakers * perWaker
        }
        let overlapped = runs.overlapped.load(ordering: .relaxed)
        #expect(!overlapped)
        // The thread ended on its idle limit and started again, more than once.
        let threadsSeen = runs.threadsSeen.load(ordering: .relaxed)
        #expect(threadsSeen > 1)
    }

    /// Each wake comes about when the idle thread gives up (a 1 ms limit), one at a time: its
    /// body must run before the next wake, which never comes otherwise (a writer's last write
    /// would wait for good).
    @Test func aWakeAsTheIdleThreadEndsIsServed() throws {
        let thread = WriterThread(idleLimit: .milliseconds(1))
        let runs = Runs()
        for index in 0..<600 {
            usleep(UInt32.random(in: 700...1_300))
            thread.wake { runs.run() }
            let deadline = DispatchTime.now() + .seconds(30)
            while runs.count.load(ordering: .relaxed) < index + 1 && DispatchTime.now() < deadline { usleep(50) }
            let count = runs.count.load(ordering: .relaxed)
            try #require(count == index + 1, "wake \(index) was not served")
        }
    }

    /// With every thread of the budget taken, another writer's wakes run on the dispatch pool,
    /// each once and never two at a time, and its thread is not counted.
    @Test func pastTheBudgetWakesRunOnThePool() async throws {
        let budget = WriterThread.Budget(threads: 1)
        let first = WriterThread(idleLimit: .seconds(60), budget: budget)
        let second = WriterThread(idleLimit: .seconds(60), budget: budget)
        let firstRuns = Runs()
        let secondRuns = Runs()
        first.wake { firstRuns.run() }
        try await eventually(timeout: .seconds(60), interval: .milliseconds(5)) {
            firstRuns.count.load(ordering: .relaxed) == 1
        }
        for _ in 0..<200 { second.wake { secondRuns.run() } }
        try await eventually(timeout: .seconds(60), interval: .milliseconds(5)) {
            secondRuns.count.load(ordering: .relaxed) == 200
        }
        let overlapped = secondRuns.overlapped.load(ordering: .relaxed)
        #expect(!overlapped)
        #expect(!secondRuns.names.withLock { $0 }.contains("hearth-writer"))
        #expect(budget.taken == 1)
        // The first writer keeps its thread.
        first.wake { firstRuns.run() }
        try await eventually(timeout: .seconds(60), interval: .milliseconds(5)) {
            firstRuns.count.load(ordering: .relaxed) == 2
        }
        let threadsSeen = firstRuns.threadsSeen.load(ordering: .relaxed)
        #expect(threadsSeen == 1)
    }
}
