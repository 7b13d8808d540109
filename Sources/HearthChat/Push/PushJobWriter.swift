import Dispatch
import HearthCore
import HearthDatabase
import Synchronization

/// Writes the push queue's job changes on a thread of the writer's priority, while the queue's
/// own (niced) thread waits. LevelDB's writers line up behind the one writing the log: a change
/// written by the niced thread, paused by the scheduler in the middle of its write while
/// serving has the CPU, would hold the namespace's writer (and every message) up behind it
/// (docs/decisions/0019-push-queue-one-record-per-intent.md).
struct PushJobWriter: Sendable {
    private static let queue = DispatchQueue(label: "hearth.push.jobs", qos: .userInitiated)

    let engine: NamespaceEngine

    /// Applies `changes` atomically (`NamespaceEngine.changeJobs`); returns when they are.
    func apply(_ changes: [JobChange]) throws {
        guard !changes.isEmpty else { return }
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let engine = engine
        Self.queue.async {
            let result = Result { try engine.changeJobs(changes) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        try outcome.withLock { $0 }?.get()
    }
}
