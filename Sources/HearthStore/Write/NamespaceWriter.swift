import Dispatch
import Synchronization

/// The one serial writer of a namespace. Jobs run in order on its queue; each round applies
/// every queued job, then (with `--sync always`) one fsync covers them all before any of them
/// is acknowledged: group commit.
///
/// Within a round, writes that cannot see one another (see `NamespaceStore.write`) are
/// *staged*: each gets its sequence number at once, but their batches are applied to LevelDB
/// together, as one batch, before the round ends (`flushStaged`), so a round of small writes
/// costs one log write instead of one per write. Any other job flushes the staged writes
/// before it runs, so it reads them; a staged write is acknowledged only after the flush.
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
    /// Writes staged in this round and not yet applied to LevelDB; touched only on `queue`.
    nonisolated(unsafe) private var staged: StagedWrites?
    /// The snapshot write jobs read while LevelDB is unchanged by this writer (it is replaced
    /// after every write of the writer and released when a round ends); touched only on `queue`.
    nonisolated(unsafe) private var roundSnapshot: Snapshot?
    /// Tests: the next flush of staged writes fails with this instead of writing; set only from
    /// a job (touched only on `queue`).
    nonisolated(unsafe) var failNextFlush: Error?
    /// How many staged groups reached LevelDB (for tests); touched only on `queue`.
    nonisolated(unsafe) private(set) var groupsApplied = 0
    /// The staged group the running job joined, if it staged a write; touched only on `queue`.
    nonisolated(unsafe) private var joinedGroup: StagedWrites.Outcome?
    /// Until the namespace's first write reaches LevelDB, what makes it exist on disk (written
    /// just before that write); nil for a namespace that exists. Touched only on `queue`.
    nonisolated(unsafe) private var registration: NamespaceRegistration?
    /// Told about every commit, in order, once it is as durable as the sync mode promises.
    private let observers = Mutex<[@Sendable (CommittedWrite) -> Void]>([])

    init(
        name: String,
        db: LevelDB,
        keys: KeySpace,
        sequence: UInt64,
        syncAlways: Bool,
        registration: NamespaceRegistration?,
        onCommit: @escaping @Sendable () -> Void
    ) {
        self.registration = registration
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
    /// - Parameter staging: the job may stage its write (`stage`) and flushes what earlier jobs
    ///   staged itself when it needs to read it; other jobs find every staged write applied.
    func perform<T: Sendable>(
        staging: Bool = false,
        _ body: @escaping @Sendable () throws -> T,
        completion: @escaping @Sendable (Result<T, Error>) -> Void
    ) {
        enqueue {
            if !staging { self.settle() }
            self.joinedGroup = nil
            let result: Result<T, Error>
            do { result = .success(try body()) } catch { result = .failure(error) }
            let group = self.joinedGroup
            self.joinedGroup = nil
            return { syncError in
                // A staged write fails when its group could not be applied.
                if let error = group?.error ?? syncError, case .success = result {
                    completion(.failure(error))
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
        assert(staged == nil, "a job must flush staged writes before it plans what it commits")
        releaseRoundSnapshot()
        let next = sequence + 1
        batch.put(sequenceKey, Self.encode(next))
        do {
            try writeToLevelDB(batch)
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

    static func encode(_ sequence: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: sequence >> UInt64(shift)))
        }
        return bytes
    }

    /// True when a write whose locations (and index units) have the data keys `touched` may be
    /// staged: nothing staged contains or lies inside any of them, so it was planned against
    /// the same state it will apply to. Only from a job started with `staging`.
    func canStage(touching touched: [[UInt8]], batch: WriteBatch) -> Bool {
        guard let staged else { return true }
        return staged.admits(touched, batch: batch)
    }

    /// True when writes are staged in this round.
    var hasStaged: Bool { staged != nil }

    /// True when a staged write's location contains or lies inside one of the data keys `keys`
    /// (so a read of them before the round would not see it).
    func stagedOverlaps(_ keys: [[UInt8]]) -> Bool {
        staged?.overlaps(keys) ?? false
    }

    /// Stages `batch` as the next commit: it gets its sequence number now and is applied with
    /// the round's other staged writes. Call only after `canStage` said yes; only from a job
    /// started with `staging`.
    func stage(_ batch: WriteBatch, touching touched: [[UInt8]]) -> UInt64 {
        let group = staged ?? StagedWrites(sequenceBefore: sequence, announcedBefore: unannounced.count)
        staged = group
        group.add(batch, touching: touched)
        shapes.apply(shapes.staged)
        shapes.staged = SubtreeShapes.Change()
        sequence += 1
        joinedGroup = group.outcome
        return sequence
    }

    /// Applies the staged writes to LevelDB as one batch. When that fails, every staged write
    /// fails with the error (none was acknowledged), and what they announced is forgotten.
    func flushStaged() {
        guard let group = staged else { return }
        staged = nil
        releaseRoundSnapshot()
        group.batch.put(sequenceKey, Self.encode(sequence))
        do {
            if let injected = failNextFlush {
                failNextFlush = nil
                throw injected
            }
            try writeToLevelDB(group.batch)
        } catch {
            group.outcome.error = error
            sequence = group.sequenceBefore
            shapes.removeAll()
            unannounced.removeSubrange(group.announcedBefore...)
            return
        }
        groupsApplied += 1
        onCommit()
        db.compactInBackground(group.batch.clearedRanges)
        db.compactSoon(group.batch.deletedRanges)
    }

    /// The state this writer's next write applies to, as a snapshot shared by the write jobs
    /// until the writer next writes to LevelDB (staged writes are not in it: a job that could
    /// read them flushes first). Only from a job started with `staging`.
    func snapshotForWriting() throws -> Snapshot {
        if let roundSnapshot { return roundSnapshot }
        let snapshot = try db.makeSnapshot()
        roundSnapshot = snapshot
        return snapshot
    }

    /// Applies what is staged and drops the round snapshot: before a job that reads on its own
    /// (`perform` without `staging`) and when a round ends.
    private func settle() {
        flushStaged()
        releaseRoundSnapshot()
    }

    private func releaseRoundSnapshot() {
        guard let snapshot = roundSnapshot else { return }
        roundSnapshot = nil
        db.releaseSnapshot(snapshot)
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
        assert(staged == nil, "a job must flush staged writes before it plans what it commits")
        releaseRoundSnapshot()
        shapes.removeAll()
        try writeToLevelDB(batch)
        onCommit()
        db.compactInBackground(batch.clearedRanges)
    }

    /// True when the namespace exists on disk; only from a job.
    var isRegistered: Bool { registration == nil }

    /// Writes the namespace's registration if it does not exist on disk yet; only from a job.
    func register() throws {
        guard let registration else { return }
        try db.write(registration.batch(), sync: false)
        self.registration = nil
        onCommit()
    }

    /// Indexes of a namespace not on disk yet, whose definitions its registration writes;
    /// only from a job.
    func registerIndexesLater(_ indexes: [RegisteredIndex]) {
        registration?.indexes = indexes
    }

    /// Every write of the namespace to LevelDB: the first one registers the namespace.
    private func writeToLevelDB(_ batch: WriteBatch) throws {
        try register()
        try db.write(batch, sync: false)
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
            settle()
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
