import HearthCore

/// One round of a namespace's writer: the jobs it took from its queue, run one after another
/// on the writer's thread. The round owns the writes staged in it (applied to LevelDB as one
/// batch, `flushStaged`), the snapshot its write jobs share while LevelDB is unchanged, and
/// the commits it announces when it ends.
///
/// A round is not `Sendable`: a job gets it as a parameter and can neither keep it past the
/// job nor hand it to another thread. What only some jobs may do is checked: only a job
/// started with `staging` stages, and a commit of its own needs nothing staged.
final class WriteRound {
    private let state: WriterState
    private var staged: StagedWrites?
    private var snapshot: Snapshot?
    /// Commits of this round, in order, not announced yet.
    private var announced: [CommittedWrite] = []
    /// Whether the running job was started with `staging`.
    private var jobStages = false
    /// The staged group the running job joined, if it staged a write.
    private var joinedGroup: StagedWrites.Outcome?
    /// Whether a write that joined a large staged group (`StagedWrites.largeGroupOperations`)
    /// wrote one of its locations again (a hot counter); nil when none joined one. What
    /// `RoundsOfOne` learns from.
    private(set) var largeGroupShared: Bool?

    init(state: WriterState) {
        self.state = state
    }

    // MARK: Jobs (called by the writer)

    /// Starts a job: one that does not stage finds every staged write applied.
    func beginJob(staging: Bool) {
        if !staging { settle() }
        jobStages = staging
        joinedGroup = nil
    }

    /// Ends a job; the staged group it joined, if any (its outcome decides the job's).
    func endJob() -> StagedWrites.Outcome? {
        defer {
            joinedGroup = nil
            jobStages = false
        }
        return joinedGroup
    }

    /// Ends the round: applies what is staged, releases the snapshot; the round's commits.
    func finish() -> [CommittedWrite] {
        settle()
        let commits = announced
        announced = []
        return commits
    }

    // MARK: For jobs

    /// The keys of small subtrees the writer wrote recently.
    var shapes: SubtreeShapes { state.shapes }

    /// Where recent lists of derived updates landed.
    var layouts: DerivedLayouts { state.layouts }

    /// Which indexed lists keep entries, as far as the writer knows.
    var keptLists: KeptLists { state.keptLists }

    /// The state the next write applies to, as a snapshot shared by the round's write jobs
    /// until the writer next writes to LevelDB (staged writes are not in it).
    func snapshotForWriting() throws -> Snapshot {
        if let snapshot { return snapshot }
        let made = try state.db.makeSnapshot()
        snapshot = made
        return made
    }

    /// True when writes are staged in this round.
    var hasStaged: Bool { staged != nil }

    /// True when a staged write's location contains or lies inside one of the data keys `keys`
    /// (so a read of them in `snapshotForWriting` would not see it).
    func stagedOverlaps(_ keys: [[UInt8]]) -> Bool {
        staged?.conflicts(keys) ?? false
    }

    /// True when a staged write could change a last-child read: `read.parent`'s data key and
    /// the found child's encoded segment (see `StagedWrites.conflicts(lastChildOf:found:)`).
    func stagedChangesLastChild(of parent: [UInt8], found segment: [UInt8]?) -> Bool {
        staged?.conflicts(lastChildOf: parent, found: segment) ?? false
    }

    /// What the staged writes do to the children of the node at data key `parent` after the
    /// child whose encoded segment is `segment`.
    func stagedLaterChildren(of parent: [UInt8], after segment: [UInt8]) -> TouchedKeys.LaterChildren {
        staged?.laterChildren(of: parent, after: segment) ?? .untouched
    }

    /// The indexed value of the child whose entry identity is `key` (`IndexMaintenance`) as the
    /// staged writes left it: nil when none changed it, `.some(nil)` when one removed the child.
    func stagedIndexedValue(_ key: [UInt8]) -> [UInt8]?? {
        guard let staged else { return nil }
        return staged.indexedValue(key)
    }

    /// `stagedOverlaps`, except that a key `fromMemory` may be one a staged write wrote (not
    /// above or below it).
    func stagedConflicts(_ keys: [[UInt8]], fromMemory: (Int) -> Bool) -> Bool {
        staged?.conflicts(keys, fromMemory: fromMemory) ?? false
    }

    /// Stages `batch` as the next commit when it may join the round's group (nothing staged
    /// contains or lies inside the keys `touched`, but a staged location the write planned
    /// from the writer's memory alone, `fromMemory(i)` for `touched[i]`; and the group has
    /// room): it gets its sequence number now and is applied with the group. Nil when it may
    /// not.
    /// - Parameter describe: the commit, given its sequence number (announced when the round
    ///   ends, and logged in the same batch when the namespace has commit observers).
    /// - Parameter indexedValues: the indexed values the write changed (later
    ///   writes of the group read them from the group: `stagedIndexedValue`).
    /// - Parameter hashes: `SubtreeShapes.hash` of the first of `touched`, when known.
    /// - Parameter jobs: the jobs the write's triggers queued, put under the commit's sequence
    ///   number.
    func stage(
        _ batch: WriteBatch,
        touching touched: [[UInt8]],
        hashes: [UInt64] = [],
        fromMemory: (Int) -> Bool = { _ in false },
        indexedValues: [(key: [UInt8], value: [UInt8]?)] = [],
        jobs: [ServerJob] = [],
        as describe: (UInt64) -> CommittedWrite
    ) -> UInt64? {
        precondition(jobStages, "only a job started with staging may stage a write")
        var rewritesKeys = false
        if let staged {
            guard
                case .admitted(let rewrites) = staged.admission(
                    of: touched,
                    hashes: hashes,
                    fromMemory: fromMemory,
                    batch: batch
                )
            else { return nil }
            rewritesKeys = rewrites
            if staged.batch.count >= StagedWrites.largeGroupOperations {
                largeGroupShared = rewrites || largeGroupShared == true
            }
        }
        let group = staged ?? StagedWrites(sequenceBefore: state.sequence, announcedBefore: announced.count)
        staged = group
        let next = state.sequence + 1
        var commit = describe(next)
        if !jobs.isEmpty {
            state.keys.putJobs(jobs, sequence: next, into: batch)
            commit.jobQueues = ServerJob.queues(of: jobs)
        }
        state.commitLog?.append(commit, to: batch)
        group.add(
            batch,
            touching: touched,
            hashes: hashes,
            rewritesKeys: rewritesKeys,
            indexedValues: indexedValues
        )
        state.shapes.apply(state.shapes.takeStaged())
        state.sequence = next
        announced.append(commit)
        joinedGroup = group.outcome
        return next
    }

    /// Applies the staged writes to LevelDB as one batch. When that fails, every staged write
    /// fails with the error (none was acknowledged), and what they announced is forgotten.
    func flushStaged() {
        guard let group = staged else { return }
        staged = nil
        releaseSnapshot()
        group.dropOverriddenKeys()
        group.batch.put(state.sequenceKey, NamespaceWriter.encode(state.sequence))
        do {
            try state.write(group.batch, .stagedGroup)
        } catch {
            group.outcome.error = error
            state.sequence = group.sequenceBefore
            state.shapes.removeAll()
            announced.removeSubrange(group.announcedBefore...)
            return
        }
        state.onCommit()
        state.db.compactInBackground(group.batch.clearedRanges)
        state.db.compactSoon(group.batch.deletedRanges)
    }

    /// Commits `batch` with the next sequence number, on its own. Nothing may be staged: the
    /// batch was planned against a state without them.
    /// - Parameter stagedShapes: the batch was planned with `shapes` (its staged change is
    ///   applied); otherwise every remembered shape is dropped.
    /// - Parameter jobs: the jobs the write's triggers queued, put under the commit's sequence
    ///   number.
    /// - Parameter describe: the commit, given its sequence number.
    func commit(
        _ batch: WriteBatch,
        stagedShapes: Bool = false,
        jobs: [ServerJob] = [],
        as describe: (UInt64) -> CommittedWrite
    ) throws -> UInt64 {
        precondition(staged == nil, "a job must flush staged writes before it commits on its own")
        releaseSnapshot()
        let next = state.sequence + 1
        var commit = describe(next)
        if !jobs.isEmpty {
            state.keys.putJobs(jobs, sequence: next, into: batch)
            commit.jobQueues = ServerJob.queues(of: jobs)
        }
        batch.put(state.sequenceKey, NamespaceWriter.encode(next))
        state.commitLog?.append(commit, to: batch)
        do {
            try state.write(batch, .commit)
        } catch {
            state.shapes.removeAll()
            throw error
        }
        if stagedShapes { state.shapes.apply(state.shapes.takeStaged()) } else { state.shapes.removeAll() }
        state.shapes.staged = SubtreeShapes.Change()
        state.sequence = next
        announced.append(commit)
        state.onCommit()
        state.db.compactInBackground(batch.clearedRanges)
        state.db.compactSoon(batch.deletedRanges)
        return next
    }

    /// Writes `batch` without a sequence number (index builds, import chunks, onDisconnect
    /// records). Nothing may be staged.
    func commitUnsequenced(_ batch: WriteBatch) throws {
        precondition(staged == nil, "a job must flush staged writes before it commits on its own")
        releaseSnapshot()
        state.shapes.removeAll()
        try state.write(batch, .unsequenced)
        state.onCommit()
        state.db.compactInBackground(batch.clearedRanges)
    }

    /// True when the namespace exists on disk.
    var isRegistered: Bool { state.registration == nil }

    /// Writes the namespace's registration if it does not exist on disk yet.
    func register() throws {
        releaseSnapshot()
        try state.register()
    }

    /// Indexes of a namespace not on disk yet, whose definitions its registration writes.
    func registerIndexesLater(_ indexes: [RegisteredIndex]) {
        state.registration?.indexes = indexes
    }

    // MARK: Private

    /// Applies what is staged and drops the snapshot.
    private func settle() {
        flushStaged()
        releaseSnapshot()
    }

    private func releaseSnapshot() {
        guard let snapshot else { return }
        self.snapshot = nil
        state.db.releaseSnapshot(snapshot)
    }
}
