import Dispatch
import HearthCore
import HearthDatabase
import HearthFunctions
import Logging
import ServiceLifecycle
import Synchronization

/// Carries out the file deletions queued with database commits (`FileDeletion`, queue
/// `files.delete`): a deleted message's attachment, a deleted chat's or account's folder. At
/// start it drains every namespace that holds such jobs (what a crash or a stop left between a
/// commit and its deletion); then it wakes on every commit that queues one, in any namespace.
/// Each job is removed only once what it names is gone (an object already gone counts), so a
/// folder deletion cut short resumes from the job. A namespace whose deletion failed is tried
/// again after a backoff (`retryDelay`), not before, and logged. Listed after the store in the
/// `ServiceGroup`, so it stops (finishing the deletion in hand) before the store closes.
final class FileDeletionWorker: Service, Sendable {
    let database: Database
    let files: StorageFiles
    let logger: Logger
    /// The first retry's delay; each failure in a row doubles it, up to `maxRetryDelay`.
    let firstRetryDelay: Duration
    let maxRetryDelay: Duration

    /// Jobs read per page.
    static let pageSize = 64

    private struct State {
        /// The engines watched (their commits wake the worker), by namespace.
        var engines: [String: NamespaceEngine] = [:]
        /// Namespaces to drain.
        var pending: Set<String> = []
        /// Failed drains in a row, by namespace.
        var failures: [String: Int] = [:]
        /// The retries waiting out their backoff, by namespace.
        var retries: [String: Task<Void, Never>] = [:]
        var stopped = false
    }

    private let state = Mutex(State())
    private let wakes: AsyncStream<Void>
    private let wakeUp: AsyncStream<Void>.Continuation
    /// The worker's own thread for the store's synchronous reads and removals of jobs.
    private let queue = DispatchQueue(label: "hearth.files.delete")

    init(
        database: Database,
        files: StorageFiles,
        logger: Logger,
        firstRetryDelay: Duration = .seconds(1),
        maxRetryDelay: Duration = .seconds(300)
    ) {
        self.database = database
        self.files = files
        self.logger = logger
        self.firstRetryDelay = firstRetryDelay
        self.maxRetryDelay = maxRetryDelay
        (wakes, wakeUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func run() async {
        database.observeEngines { [weak self] name, engine in self?.watch(name, engine) }
        do {
            for name in try await onQueue({ [database] in try database.namespaces(withJobsIn: FileDeletion.queue) }) {
                wake(name)
            }
        } catch {
            logger.error(
                "file deletions left by the previous run could not be listed",
                metadata: ["hearth.error": "\(error)"]
            )
        }
        await withGracefulShutdownHandler {
            for await _ in wakes {
                await drainPending()
            }
        } onGracefulShutdown: { [self] in
            let retries = state.withLock { state in
                state.stopped = true
                return state.retries.values
            }
            for retry in retries { retry.cancel() }
            wakeUp.finish()
        }
    }

    /// The deletions queued and not yet carried out, in every namespace (the gauge
    /// `hearth_file_deletions_pending`; counted up to 100,000; -1 when the store cannot be read).
    func pendingCount() -> Int {
        (try? database.jobCount(in: FileDeletion.queue, limit: 100_000)) ?? -1
    }

    /// Watches `engine`'s commits for queued deletions (once per engine: a cluster node that
    /// lost a namespace and took it back has a new one), and drains it once.
    private func watch(_ name: String, _ engine: NamespaceEngine) {
        let isNew = state.withLock { state in
            if let known = state.engines[name], known === engine { return false }
            state.engines[name] = engine
            return true
        }
        guard isNew else { return }
        engine.onJobsQueued(in: FileDeletion.queue) { [weak self] in self?.wake(name) }
        // A commit another caller made through this engine before the line above: its jobs
        // are read now (a page read when there are none).
        wake(name)
    }

    /// Marks `name` to be drained and wakes the worker.
    private func wake(_ name: String) {
        state.withLock { _ = $0.pending.insert(name) }
        wakeUp.yield()
    }

    /// Drains every namespace marked, until none is.
    private func drainPending() async {
        while true {
            let names = state.withLock { state -> Set<String> in
                guard !state.stopped else { return [] }
                defer { state.pending = [] }
                return state.pending
            }
            if names.isEmpty { return }
            for name in names.sorted() {
                let failed = await drain(name)
                scheduleRetry(of: name, failed: failed)
            }
        }
    }

    /// Carries out every queued deletion of namespace `name`, removing each job done.
    /// - Returns: how many jobs failed (left for a retry).
    private func drain(_ name: String) async -> Int {
        var failed = 0
        var after: [UInt8]?
        do {
            // The database's engine of the namespace now (in a cluster it may have been made
            // again since this worker last saw it).
            let engine = try database.namespace(name)
            while !state.withLock({ $0.stopped }) {
                let page = try await onQueue { [after] in
                    try engine.jobs(in: FileDeletion.queue, after: after, limit: Self.pageSize)
                }
                guard let last = page.last else { break }
                after = last.key
                for job in page where !state.withLock({ $0.stopped }) {
                    if await carryOut(job, in: name) {
                        try await onQueue { try engine.changeJobs([.remove(queue: job.queue, key: job.key)]) }
                    } else {
                        failed += 1
                    }
                }
            }
        } catch {
            logger.error(
                "queued file deletions could not be read or removed",
                metadata: ["hearth.ns": "\(name)", "hearth.error": "\(error)"]
            )
            failed += 1
        }
        return failed
    }

    /// Deletes what `job` names; true when it is gone (or the job names nothing that could
    /// ever be deleted: it is removed, with an error logged).
    private func carryOut(_ job: StoredJob, in name: String) async -> Bool {
        guard let deletion = FileDeletion(payload: job.payload) else {
            logger.error(
                "a queued file deletion names nothing to delete; dropped",
                metadata: ["hearth.ns": "\(name)", "hearth.job": "\(String(decoding: job.payload, as: UTF8.self))"]
            )
            return true
        }
        do {
            try await files.carryOut(deletion)
            return true
        } catch {
            logger.warning(
                "a queued file deletion failed; it stays queued",
                metadata: ["hearth.ns": "\(name)", "hearth.file": "\(deletion)", "hearth.error": "\(error)"]
            )
            return false
        }
    }

    /// After a drain of `name`: nothing to do when it carried everything out; else a retry
    /// after the backoff of its failures in a row.
    private func scheduleRetry(of name: String, failed: Int) {
        let delay: Duration? = state.withLock { state in
            guard failed > 0 else {
                state.failures[name] = nil
                return nil
            }
            let count = (state.failures[name] ?? 0) + 1
            state.failures[name] = count
            guard !state.stopped else { return nil }
            let delay = Self.backoff(after: count, first: firstRetryDelay, max: maxRetryDelay)
            state.retries[name]?.cancel()
            state.retries[name] = Task { [weak self] in
                guard (try? await Task.sleep(for: delay)) != nil else { return }
                self?.wake(name)
            }
            return delay
        }
        if let delay {
            logger.warning(
                "file deletions to retry",
                metadata: ["hearth.ns": "\(name)", "hearth.failed": "\(failed)", "hearth.retry_in": "\(delay)"]
            )
        }
    }

    /// The delay before retry number `attempt` (1 for the first): `first` doubled for each
    /// failure before it, at most `max`.
    static func backoff(after attempt: Int, first: Duration, max: Duration) -> Duration {
        var delay = first
        for _ in 1..<Swift.max(attempt, 1) where delay < max { delay *= 2 }
        return Swift.min(delay, max)
    }

    /// Runs `body` on the worker's queue (the store's synchronous calls stay off the event loops).
    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
