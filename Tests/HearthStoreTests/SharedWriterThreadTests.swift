import Dispatch
import Foundation
import HearthTestSupport
import Synchronization
import Testing

@testable import HearthStore

/// A store's replicated writers take turns on one thread: one round each, in the order their
/// work came, never two at once, none lost.
@Suite struct SharedWriterThreadTests {
    /// What the turns did, in order.
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        let inside = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        let threads = Mutex<Set<ObjectIdentifier>>([])

        func enter(_ name: String) {
            if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                overlapped.store(true, ordering: .relaxed)
            }
            threads.withLock { _ = $0.insert(ObjectIdentifier(Thread.current)) }
            entries.withLock { $0.append(name) }
            inside.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// A writer's turn with `rounds` rounds of work: one a turn, true while more remain.
    final class Writer: Sendable {
        let name: String
        let left: Atomic<Int>
        let log: Log

        init(_ name: String, rounds: Int, log: Log) {
            self.name = name
            left = Atomic(rounds)
            self.log = log
        }

        func turn() -> Bool {
            log.enter(name)
            return left.subtract(1, ordering: .relaxed).newValue > 0
        }
    }

    @Test func writersTakeOneRoundEachInTurnOnOneThread() async throws {
        // The thread held on a gate's turn so that all three are waiting when it goes on.
        let gate = DispatchSemaphore(value: 0)
        let shared = SharedWriterThread()
        let log = Log()
        let a = Writer("a", rounds: 3, log: log)
        let b = Writer("b", rounds: 2, log: log)
        let c = Writer("c", rounds: 1, log: log)
        shared.take { _ in
            gate.wait()
            log.enter("gate")
            return false
        }
        shared.take { _ in a.turn() }
        shared.take { _ in b.turn() }
        shared.take { _ in c.turn() }
        gate.signal()
        try await eventually(timeout: .seconds(60), interval: .milliseconds(5)) {
            log.entries.withLock { $0.count } == 7
        }
        // One round of each writer with work, then again: a writer with many rounds does not
        // hold the thread while the others wait.
        #expect(log.entries.withLock { $0 } == ["gate", "a", "b", "c", "a", "b", "a"])
        #expect(log.threads.withLock { $0.count } == 1)
        let overlapped = log.overlapped.load(ordering: .relaxed)
        #expect(!overlapped)
    }

    /// Writers handing turns from several tasks while the thread keeps ending on a 1 ms idle
    /// limit: every round of every writer runs once, and no two at once.
    @Test func noTurnIsLostWhileTheThreadEndsAndStartsAgain() async throws {
        let shared = SharedWriterThread(thread: WriterThread(idleLimit: .milliseconds(1)))
        let log = Log()
        let writers = 8
        let handsPerWriter = 100
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<writers {
                group.addTask {
                    for hand in 0..<handsPerWriter {
                        // Each hand-over is a writer's work going from none to some: its turn
                        // is handed once and runs two rounds before the writer is idle again.
                        let writer = Writer("w\(index)", rounds: 2, log: log)
                        shared.take { _ in writer.turn() }
                        while writer.left.load(ordering: .acquiring) > 0 {
                            try? await Task.sleep(for: .microseconds(hand % 3 * 200 + 50))
                        }
                    }
                }
            }
        }
        let entries = log.entries.withLock { $0 }
        #expect(entries.count == writers * handsPerWriter * 2)
        for index in 0..<writers {
            #expect(entries.filter { $0 == "w\(index)" }.count == handsPerWriter * 2)
        }
        let overlapped = log.overlapped.load(ordering: .relaxed)
        #expect(!overlapped)
    }
}
