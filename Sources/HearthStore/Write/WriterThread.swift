import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The thread a writer's queued rounds run on (`NamespaceWriter.drain`): one thread of its own,
/// started when the writer is woken and ended once it has waited `idleLimit` (2 s) with nothing
/// to do, so a namespace that stops writing holds no thread. A writer whose rounds run on its
/// queue (expensive jobs, `--sync always`, a cluster) thus keeps one thread, and its caches,
/// rather than moving between a dispatch pool's threads each time its queue empties, which
/// cost a 100-member chat message's writer about 5 % of its throughput (decision 0028).
///
/// The threads are bounded (`Budget`, 256 for the process): a writer woken while every thread
/// of the budget runs does that wake's work on a dispatch pool thread instead, as before.
final class WriterThread: Sendable {
    /// How many writer threads may run at once; beyond it wakes run on the dispatch pool.
    final class Budget: Sendable {
        static let shared = Budget(threads: 256)

        let threads: Int
        private let running = Atomic<Int>(0)

        init(threads: Int) {
            self.threads = threads
        }

        /// Takes a thread, unless all are taken.
        func take() -> Bool {
            if running.add(1, ordering: .relaxed).newValue <= threads { return true }
            running.subtract(1, ordering: .relaxed)
            return false
        }

        func give() {
            running.subtract(1, ordering: .relaxed)
        }

        /// Threads taken now.
        var taken: Int { running.load(ordering: .relaxed) }
    }

    /// How long an idle thread waits for the next wake before it ends.
    let idleLimit: DispatchTimeInterval
    private let budget: Budget

    /// Whether the thread runs (or is starting). `wake()` signals `wakes` under this lock, and
    /// an idle thread decides to end under it.
    private let running = Mutex(false)
    /// One signal per `wake()`: the thread runs `body` once for each.
    private let wakes = DispatchSemaphore(value: 0)
    /// Where wakes past the budget run: a serial queue of the writer's own, as before there
    /// were writer threads (a serial queue gets a pool thread even when the pool's width is
    /// taken by blocked work, which the global queues do not).
    private let pooled: DispatchQueue

    /// - Parameter name: the namespace's, for the label of the queue wakes past the budget run on.
    init(name: String = "", idleLimit: DispatchTimeInterval = .seconds(2), budget: Budget = .shared) {
        self.idleLimit = idleLimit
        self.budget = budget
        pooled = DispatchQueue(label: "hearth.writer.\(name)", qos: .userInitiated)
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
        guard start else { return }
        if budget.take() {
            Thread { [self] in
                run(body)
                budget.give()
            }.start()
        } else {
            pooled.async { [self] in runPooled(body) }
        }
    }

    /// The work of the wakes signalled so far, on a pool thread: what a thread would do, but
    /// ending as soon as none is left.
    private func runPooled(_ body: @Sendable () -> Void) {
        while true {
            let more = running.withLock { running -> Bool in
                if wakes.wait(timeout: .now()) == .success { return true }
                running = false
                return false
            }
            guard more else { return }
            body()
        }
    }

    /// Names the calling thread (in `top -H`, `perf`, `/proc`). Foundation's `Thread.name`
    /// names the system thread only once the starting thread has recorded it, which a thread
    /// that names itself at once may beat: it then kept its creator's name.
    private static func name(_ name: String) {
        #if canImport(Glibc)
        // `pthread_setname_np` needs `_GNU_SOURCE`, which the Glibc module lacks.
        let file = open("/proc/thread-self/comm", O_WRONLY)
        guard file >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)
        #else
        Thread.current.name = name
        #endif
    }

    private func run(_ body: @Sendable () -> Void) {
        Self.name("hearth-writer")
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
