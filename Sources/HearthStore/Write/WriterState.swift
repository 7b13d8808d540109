/// What a namespace's writer keeps from one round to the next. Not `Sendable`: the writer
/// keeps it in a lock that only its running round holds (`NamespaceWriter.drain`), and hands it
/// to jobs only inside a `WriteRound`.
final class WriterState {
    /// The last committed sequence number.
    var sequence: UInt64
    /// The keys of small subtrees written recently.
    let shapes = SubtreeShapes()
    /// Where recent lists of derived updates landed.
    let layouts = DerivedLayouts()
    /// Which indexed lists keep entries, as far as the writer read or wrote their markers.
    let keptLists = KeptLists()
    /// Until the namespace's first write reaches LevelDB, what makes it exist on disk (written
    /// just before that write); nil for a namespace that exists.
    var registration: NamespaceRegistration?
    let db: LevelDB
    /// Where batches go (LevelDB, or a test's wrapper).
    let output: BatchWriter
    let sequenceKey: [UInt8]
    /// The namespace's keys (for the jobs a commit queues).
    let keys: KeySpace
    /// The namespace's commit log, when it has commit observers.
    let commitLog: CommitLog?
    /// Told that the store has unsynced writes.
    let onCommit: @Sendable () -> Void

    init(
        sequence: UInt64,
        registration: NamespaceRegistration?,
        db: LevelDB,
        output: BatchWriter,
        keys: KeySpace,
        commitLog: CommitLog?,
        onCommit: @escaping @Sendable () -> Void
    ) {
        self.sequence = sequence
        self.registration = registration
        self.db = db
        self.output = output
        self.keys = keys
        self.sequenceKey = keys.sequenceKey
        self.commitLog = commitLog
        self.onCommit = onCommit
    }

    /// Every write of the namespace to LevelDB: the first one registers the namespace.
    func write(_ batch: WriteBatch, _ kind: BatchWriter.Kind) throws {
        try register()
        do {
            try output.write(batch, kind)
        } catch {
            keptLists.forget()
            throw error
        }
        if batch.changesKeptLists { keptLists.forget() }
    }

    /// Writes the namespace's registration if it does not exist on disk yet.
    func register() throws {
        guard let registration else { return }
        try output.write(registration.batch(), .registration)
        self.registration = nil
        onCommit()
    }
}
