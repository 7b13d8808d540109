#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets event loops run namespace writers' rounds instead of the writers' queues: a loop hands
/// the writes its connections started in one pass over inside `collect(from:)`, and each writer
/// runs them in a round on its home loop (the first loop that handed it jobs, or the next one
/// once the home handed none for a while): at once when that is the caller, with no hop to the
/// writer's thread and back, else in a task there.
/// Writers whose jobs turned expensive (`StoreConfiguration.loopJobLimit`) and `--sync always`
/// keep their rounds on the queue. docs/design.md, "Where a round runs".
public enum CallerDrains {
    /// A thread that runs rounds (an event loop): its identity, and how to run work on it.
    public struct Home: Sendable {
        let id: ObjectIdentifier
        let execute: @Sendable (@escaping @Sendable () -> Void) -> Void

        public init(id: ObjectIdentifier, execute: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
            self.id = id
            self.execute = execute
        }
    }

    /// The jobs handed to each writer inside `collect` on this thread.
    final class Owed {
        var shares: [(writer: NamespaceWriter, jobs: [NamespaceWriter.Job])] = []

        func add(_ job: @escaping NamespaceWriter.Job, for writer: NamespaceWriter) {
            if let index = shares.firstIndex(where: { $0.writer === writer }) {
                shares[index].jobs.append(job)
            } else {
                shares.append((writer, [job]))
            }
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed (\(status))")
        return key
    }()

    /// `StoreConfiguration.loopJobLimit`'s default: 50 µs.
    public static let defaultLoopJobLimit: UInt64 = 50_000

    /// `StoreConfiguration.homeIdleLimit`'s default: 100 ms.
    public static let defaultHomeIdleLimit: UInt64 = 100_000_000

    static func now() -> UInt64 { nanoseconds(CLOCK_MONOTONIC) }

    /// The CPU time the calling thread has used, in nanoseconds: what a round costs the thread
    /// that runs it, without the time it spent preempted (wall time also counts other threads
    /// holding the core, which on a shared 2-core machine can be most of it).
    static func threadCPUTime() -> UInt64 { nanoseconds(CLOCK_THREAD_CPUTIME_ID) }

    private static func nanoseconds(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// The collector of the current thread, if it is inside `collect`.
    static var current: Owed? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<Owed>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body`, keeping the writes it hands to namespace writers; then each writer runs
    /// its share in one round on its home loop (here, when this is the home).
    public static func collect(from caller: Home, _ body: () -> Void) {
        guard pthread_getspecific(key) == nil else { return body() }
        let owed = Owed()
        let pointer = Unmanaged.passRetained(owed).toOpaque()
        pthread_setspecific(key, pointer)
        body()
        pthread_setspecific(key, nil)
        Unmanaged<Owed>.fromOpaque(pointer).release()
        for (writer, jobs) in owed.shares { writer.runOnCaller(jobs, from: caller) }
    }
}
