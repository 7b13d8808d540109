import Dispatch
import Synchronization

/// The one serial writer of a namespace. Jobs run in order on its queue; each round applies
/// every queued job, then (with `--sync always`) one fsync covers them all before any of them
/// is acknowledged: group commit.
final class NamespaceWriter: Sendable {
    typealias Completion = @Sendable (Error?) -> Void
    typealias Job = @Sendable () -> Completion

    private struct Queue {
        var jobs: [Job] = []
        var scheduled = false
    }

    private let queue: DispatchQueue
    private let pending = Mutex(Queue())
    private let db: LevelDB
    private let sequenceKey: [UInt8]
    private let syncAlways: Bool
    private let onCommit: @Sendable () -> Void
    /// The last committed sequence number; touched only on `queue`.
    nonisolated(unsafe) private var sequence: UInt64
    /// The keys of small subtrees written recently; touched only on `queue`.
    nonisolated(unsafe) let shapes = SubtreeShapes()
    /// Commits of the current round not yet announced; touched only on `queue`.
    nonisolated(unsafe) private var unannounced: [CommittedWrite] = []
    /// Told about every commit, in order, once it is as durable as the sync mode promises.
    private let observers = Mutex<[@Sendable (CommittedWrite) -> Void]>([])

    init(
        name: String,
        db: LevelDB,
        keys: KeySpace,
        sequence: UInt64,
        syncAlways: Bool,
        onCommit: @escaping @Sendable () -> Void
    ) {
        queue = DispatchQueue(label: "hearth.writer.\(name)", qos: .userInitiated)
        self.db = db
        sequenceKey = keys.sequenceKey
        self.sequence = sequence
        self.syncAlways = syncAlways
        self.onCommit = onCommit
    }

    /// Runs `body` on the writer; resumes after the round's sync when `--sync always`.
    func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            perform(body) { continuation.resume(with: $0) }
        }
    }

    /// Runs `body` on the writer and calls `completion` with its result after the round's sync
    /// (`--sync always`), on the writer's thread: it must only hand the result on.
    func perform<T: Sendable>(
        _ body: @escaping @Sendable () throws -> T,
        completion: @escaping @Sendable (Result<T, Error>) -> Void
    ) {
        enqueue {
            let result: Result<T, Error>
            do { result = .success(try body()) } catch { result = .failure(error) }
            return { syncError in
                if let syncError, case .success = result {
                    completion(.failure(syncError))
                } else {
                    completion(result)
                }
            }
        }
    }

    /// Commits `batch` with the next sequence number; call only from a job.
    /// - Parameter stagedShapes: the batch was planned with `shapes` (its staged change is
    ///   applied); otherwise every remembered shape is dropped.
    func commit(_ batch: WriteBatch, stagedShapes: Bool = false) throws -> UInt64 {
        let next = sequence + 1
        var bytes: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: next >> UInt64(shift)))
        }
        batch.put(sequenceKey, bytes)
        do {
            try db.write(batch, sync: false)
        } catch {
            shapes.removeAll()
            throw error
        }
        if stagedShapes { shapes.apply(shapes.staged) } else { shapes.removeAll() }
        shapes.staged = SubtreeShapes.Change()
        sequence = next
        onCommit()
        db.compactInBackground(batch.clearedRanges)
        db.compactSoon(batch.deletedRanges)
        return next
    }

    /// Adds an observer of commits; it runs on the writer's queue and must not block.
    func observe(_ observer: @escaping @Sendable (CommittedWrite) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Records what a commit changed, announced after the round's sync; only from a job.
    func announce(_ write: CommittedWrite) {
        unannounced.append(write)
    }

    /// Writes `batch` without a sequence number (index builds, import chunks); only from a job.
    func commitUnsequenced(_ batch: WriteBatch) throws {
        shapes.removeAll()
        try db.write(batch, sync: false)
        onCommit()
        db.compactInBackground(batch.clearedRanges)
    }

    private func enqueue(_ job: @escaping Job) {
        let start = pending.withLock { state -> Bool in
            state.jobs.append(job)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        while true {
            let jobs = pending.withLock { state -> [Job] in
                let jobs = state.jobs
                state.jobs = []
                if jobs.isEmpty { state.scheduled = false }
                return jobs
            }
            if jobs.isEmpty { return }
            let completions = jobs.map { $0() }
            var syncError: Error?
            if syncAlways {
                do { try db.sync() } catch { syncError = error }
            }
            if !unannounced.isEmpty {
                let writes = unannounced
                unannounced = []
                let observers = observers.withLock { $0 }
                for write in writes {
                    for observer in observers { observer(write) }
                }
            }
            for completion in completions { completion(syncError) }
        }
    }
}
