import Dispatch
import Foundation
import Synchronization

/// The thread a writer's queued rounds run on (`NamespaceWriter.drain`): one thread of its own,
/// started when the writer is woken and ended once it has waited `idleLimit` (2 s) with nothing
/// to do, so a namespace that stops writing holds no thread. A writer whose rounds run on its
/// queue (expensive jobs, `--sync always`, a cluster) thus keeps one thread, and its caches,
/// rather than moving between a dispatch pool's threads each time its queue empties, which
/// cost a 100-member chat message's writer about 5 % of its throughput (decision 0028).
final class WriterThread: Sendable {
    /// How long an idle thread waits for the next wake before it ends.
    let idleLimit: DispatchTimeInterval

    /// Whether the thread runs (or is starting). `wake()` signals `wakes` under this lock, and
    /// an idle thread decides to end under it.
    private let running = Mutex(false)
    /// One signal per `wake()`: the thread runs `body` once for each.
    private let wakes = DispatchSemaphore(value: 0)

    init(idleLimit: DispatchTimeInterval = .seconds(2)) {
        self.idleLimit = idleLimit
    }

    /// Runs `body` (what one wake does: the writer's work until none is left) once more on
    /// the thread, starting it if it is not running; a thread that runs keeps the `body` it
    /// started with (the writer's, always the same). The caller wakes it once per time the
    /// writer's work goes from none to some (`NamespaceWriter`'s `scheduled`), so wakes never
    /// pile up.
    func wake(running body: @escaping @Sendable () -> Void) {
        let start = running.withLock { running -> Bool in
            // Signalled under the lock: a thread ending on its idle limit checks for a wake
            // under it too, so no wake is lost between its timeout and its end.
            wakes.signal()
            if running { return false }
            running = true
            return true
        }
        if start { Thread { [self] in run(body) }.start() }
    }

    private func run(_ body: @Sendable () -> Void) {
        Thread.current.name = "hearth-writer"
        while true {
            if wakes.wait(timeout: .now() + idleLimit) == .timedOut {
                let ends = running.withLock { running -> Bool in
                    if wakes.wait(timeout: .now()) == .success { return false }
                    running = false
                    return true
                }
                if ends { return }
            }
            body()
        }
    }
}
