import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A fixed set of threads for CPU-heavy work (password hashing), so that it never runs on
/// NIO event loops or starves Swift's cooperative pool. At most `maxQueued` jobs wait; more are
/// refused rather than queued without bound.
final class WorkerPool: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var stopped = false
        var started = false
    }

    private let condition = NSCondition()
    nonisolated(unsafe) private var state = State()
    let threadCount: Int
    let maxQueued: Int

    init(threads: Int, maxQueued: Int) {
        self.threadCount = max(1, threads)
        self.maxQueued = max(1, maxQueued)
    }

    /// Runs `body` on a pool thread and returns its result; nil when the queue is full or the
    /// pool has stopped.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let accepted = submit { continuation.resume(returning: body()) }
            if !accepted { continuation.resume(returning: nil) }
        }
    }

    /// Jobs accepted and not yet taken by a thread.
    var queuedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return state.jobs.count - state.head
    }

    /// Queues `job` for a pool thread; false (and nothing kept) when `maxQueued` jobs already
    /// wait or the pool has stopped.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !state.stopped, state.jobs.count - state.head < maxQueued else { return false }
        if !state.started {
            state.started = true
            for index in 0..<threadCount {
                let thread = Thread { [self] in work() }
                thread.name = "hearth.accounts.hash-\(index)"
                thread.start()
            }
        }
        state.jobs.append(job)
        condition.signal()
        return true
    }

    private func work() {
        Self.yieldToOtherThreads()
        while true {
            condition.lock()
            while state.head == state.jobs.count && !state.stopped { condition.wait() }
            if state.head == state.jobs.count {
                condition.unlock()
                return
            }
            let job = state.jobs[state.head]
            state.head += 1
            if state.head > 64 && state.head * 2 > state.jobs.count {
                state.jobs.removeFirst(state.head)
                state.head = 0
            }
            condition.unlock()
            job()
        }
    }

    /// Hashing runs only on CPU time nobody else wants: the thread is put in Linux's
    /// `SCHED_IDLE` class (else, at the lowest nice level), so 16 concurrent sign-ins cost the
    /// event loops' realtime deliveries almost nothing; sign-ins slow down instead.
    private static func yieldToOtherThreads() {
        #if os(Linux)
        keepHashBuffersMapped
        var parameters = sched_param()
        parameters.sched_priority = 0
        let schedIdle: Int32 = 5  // SCHED_IDLE (linux/sched.h)
        if pthread_setschedparam(pthread_self(), schedIdle, &parameters) != 0 {
            // who = 0: on Linux, the calling thread only.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        }
        #endif
    }

    #if os(Linux)
    /// scrypt (N=2^15, r=8) allocates 32 MB per hash. Above glibc's mmap threshold each one is a
    /// fresh mapping: 8,192 page faults to zero it and a TLB shootdown that interrupts every
    /// core (the event loops too) when it is unmapped. Raising the threshold once keeps these
    /// buffers in the hashing threads' heaps, reused from one hash to the next.
    private static let keepHashBuffersMapped: Void = {
        // `mallopt` (<malloc.h>, not in the Glibc module): M_TRIM_THRESHOLD -1, M_MMAP_THRESHOLD -3.
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
        _ = mallopt(-3, 64 << 20)
        _ = mallopt(-1, 256 << 20)
    }()
    #endif

    /// Lets queued jobs finish, then ends the threads; later `run` calls answer nil.
    func shutdown() {
        condition.lock()
        state.stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
