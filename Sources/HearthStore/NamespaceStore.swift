import Dispatch
import Foundation
public import HearthCore
import Logging
import Synchronization

/// One namespace (database) of the store: its tree, indexes and serial writer.
public final class NamespaceStore: Sendable {
    public let name: String
    let keys: KeySpace
    let db: LevelDB
    let writer: NamespaceWriter
    private let registered: Mutex<[RegisteredIndex]>
    private let clock: @Sendable () -> Double
    /// The namespace's write triggers (`StoreConfiguration.triggers`).
    private let triggers: [NamespaceTrigger]
    /// The namespace's lookup indexes (`StoreConfiguration.triggers`).
    let lookups: [RegisteredLookup]
    /// Where recent large updates landed (worked out on the callers' threads).
    let recentLocations = RecentLocations()
    /// `StoreConfiguration.smallListLimit`.
    let smallListLimit: Int
    /// The markers of lists whose entries a query asked the writer to build, not built yet.
    let keepRequests = Mutex<Set<StoredKey>>([])
    /// See `onDisconnectBytesWritten`.
    let onDisconnectBytes = Atomic<Int>(0)
    /// Whether every write is synced before it is acknowledged (`SyncMode.always`).
    let syncsEveryWrite: Bool
    /// Told that the store has unsynced writes.
    let onCommit: @Sendable () -> Void
    private static let readQueue = DispatchQueue(label: "hearth.read", qos: .userInitiated, attributes: .concurrent)

    init(
        name: String,
        id: UInt32,
        db: LevelDB,
        configuration: StoreConfiguration,
        clock: @escaping @Sendable () -> Double,
        registration: NamespaceRegistration?,
        replicatedRounds: SharedWriterThread? = nil,
        onCommit: @escaping @Sendable () -> Void
    ) throws {
        self.name = name
        keys = KeySpace(namespaceID: id)
        self.db = db
        self.clock = clock
        syncsEveryWrite = configuration.syncMode == .always
        self.onCommit = onCommit
        smallListLimit = max(0, configuration.smallListLimit)
        triggers = configuration.triggers.triggers(of: name)
        lookups = configuration.triggers.lookups(of: name)
        let (sequence, indexes, position) = try db.withSnapshot {
            snapshot -> (UInt64, [RegisteredIndex], ReplicationPosition?) in
            let keys = KeySpace(namespaceID: id)
            let reader = NamespaceReader(snapshot: snapshot, keys: keys, indexes: [])
            let sequence = snapshot.get(keys.sequenceKey).map(NamespaceStore.decodeSequence) ?? 0
            let position = snapshot.get(keys.replicationPositionKey).flatMap(KeySpace.decodePosition)
            return (sequence, IndexDefinitions.load(reader), position)
        }
        registered = Mutex(indexes)
        let observers = configuration.triggers.observers(of: name)
        let commitLog =
            observers.isEmpty
            ? nil
            : try CommitLog(namespace: name, keys: keys, db: db, observers: observers, sequence: sequence)
        writer = NamespaceWriter(
            name: name,
            db: db,
            keys: keys,
            sequence: sequence,
            syncAlways: configuration.syncMode == .always,
            loopJobLimit: configuration.loopJobLimit,
            homeIdleLimit: configuration.homeIdleLimit,
            loopProbeInterval: configuration.loopProbeInterval,
            registration: registration,
            output: configuration.batchWriter(db),
            commitLog: commitLog,
            replication: configuration.replication?(name).map { [keys] sink in
                ReplicationCapture(sink: sink, keys: keys, position: position?.lsn ?? 0)
            },
            sharedThread: replicatedRounds,
            onCommit: onCommit
        )
        // A store written before docs/decisions/0020 has reverse index entries: the writer's
        // first job removes them, once (its index entries are kept: they equal the data).
        if registration == nil, try hasRetiredReverseEntries() {
            try performAndWait { [self] round in try removeRetiredReverseEntries(in: round) }
        }
        // A store written before docs/decisions/0024 keeps entries for every indexed list: the
        // writer's first job moves it to the kept-list layout, once.
        if registration == nil, try needsMoveToKeptLists() {
            try performAndWait { [self] round in try moveToKeptLists(in: round) }
        }
        // Lookup indexes are brought in line before anything reads or writes the namespace:
        // when one is stale (a new version, or written without it), the writer's first job
        // rebuilds it while this waits (rare: a new version or deployment).
        if configuration.reconcilesLookups, registration == nil, try !lookupsAreCurrent() {
            try performAndWait { [self] round in try reconcileLookups(in: round) }
        }
    }

    /// Runs `job` as the writer's next job and waits for it, blocking this thread (the opening,
    /// when nothing else reads or writes the namespace yet; a clustered queue's job changes).
    func performAndWait(_ job: @escaping @Sendable (WriteRound) throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Void, any Error>>(.success(()))
        writer.perform(job) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        try outcome.withLock { $0 }.get()
    }

    static let logger = Logger(label: "hearth.store")

    /// Refuses every later write of this namespace object (a cluster node stopped serving the
    /// namespace: whoever still holds this object must not change the local copy).
    func retire() {
        writer.retire()
    }

    /// Makes the namespace exist on disk now, before any write (an admin set its rules); does
    /// nothing when it already exists.
    public func create() async throws {
        try await writer.perform { round in try round.register() }
    }

    static func decodeSequence(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The indexes in force.
    public var indexes: [IndexSpec] { registered.withLock { $0.map(\.spec) } }

    var registeredIndexes: [RegisteredIndex] { registered.withLock { $0 } }

    /// Runs `body` on the store's read pool against one consistent snapshot.
    ///
    /// In a cluster the snapshot may hold a round whose append to the changelog is still in
    /// flight, and that append may yet be refused: the answer then waits until the changelog
    /// holds everything the snapshot read (one commit at most), and a refused append fails the
    /// read (`.notOwner`), so no client ever reads a write that is not committed.
    public func read<T: Sendable>(_ body: @escaping @Sendable (NamespaceReader) throws -> T) async throws -> T {
        let indexes = registered.withLock { $0 }
        return try await withCheckedThrowingContinuation { continuation in
            NamespaceStore.readQueue.async { [self] in
                let read = Result {
                    try readNow(indexes: indexes) { reader in
                        (try body(reader), committedPosition(reader))
                    }
                }
                switch read {
                case .failure(let error):
                    continuation.resume(throwing: error)
                case .success(let (value, position)):
                    writer.durable(through: position) { error in
                        if let error {
                            continuation.resume(throwing: error)
                        } else {
                            continuation.resume(returning: value)
                        }
                    }
                }
            }
        }
    }

    /// Calls `resume` once everything `reader`'s snapshot holds is committed: at once on a
    /// single server; in a cluster once the changelog holds it, or with the refusal of its
    /// append (see `read`). For a read that hands out what it reads before it ends.
    public func whenCommitted(_ reader: NamespaceReader, _ resume: @escaping @Sendable (StoreError?) -> Void) {
        writer.durable(through: committedPosition(reader), resume)
    }

    /// The changelog position that must be committed before `reader`'s snapshot is answered (0
    /// when the namespace is not replicated: no read of the position key).
    private func committedPosition(_ reader: NamespaceReader) -> UInt64 {
        writer.isReplicated ? reader.replicationPosition : 0
    }

    /// Reads on the calling thread against one consistent snapshot: for work that already runs
    /// off the event loops and must not suspend (commit observers). Never call it from an event
    /// loop.
    public func readSynchronously<T>(_ body: (NamespaceReader) throws -> T) throws -> T {
        try readNow(body)
    }

    /// Reads synchronously on the calling thread (CLI and tests).
    func readNow<T>(indexes: [RegisteredIndex]? = nil, _ body: (NamespaceReader) throws -> T) throws -> T {
        let indexes = indexes ?? registered.withLock { $0 }
        return try db.withSnapshot { snapshot in
            try body(NamespaceReader(snapshot: snapshot, keys: keys, indexes: indexes, listIndexing: listIndexing))
        }
    }

    /// Applies a write through the namespace's serial writer; returns once it is durable as
    /// the store's sync mode promises.
    /// - Parameter authorize: the caller's access check, run on the writer against the state the
    ///   write applies to. A refusal throws `StoreError` `.permissionDenied` and writes nothing;
    ///   a failed `ifMatch` is answered only to callers allowed to make the write.
    public func write(_ write: Write, authorize: WriteAuthorizer? = nil) async throws -> WriteResult {
        try await withCheckedThrowingContinuation { continuation in
            self.write(write, authorize: authorize) { continuation.resume(with: $0) }
        }
    }

    /// `write(_:authorize:)` without a task: `completion` gets the result on the writer's thread
    /// (it must only hand it on, never block or write).
    /// - Parameter pass: the event loop's pass handing the write over (`WritePass`), if any.
    public func write(
        _ write: Write,
        authorize: WriteAuthorizer? = nil,
        in pass: WritePass? = nil,
        completion: @escaping @Sendable (Result<WriteResult, Error>) -> Void
    ) {
        self.write(write, authorize: authorize, consuming: nil, in: pass, completion: completion)
    }

    /// - Parameter consuming: a key deleted in the same batch as the write (an onDisconnect
    ///   record, so that the write runs once).
    func write(
        _ write: Write,
        authorize: WriteAuthorizer?,
        consuming: [UInt8]?,
        in pass: WritePass? = nil,
        completion: @escaping @Sendable (Result<WriteResult, Error>) -> Void
    ) {
        // Worked out here, off the writer; an error is still reported in the write's turn.
        // Where a large write lands is worked out here, off the serial writer; a small one's
        // costs less than handing it over, and the caller (a WebSocket event loop serving many
        // connections) is often the busier thread.
        let locations =
            write.locationCount > WriteLocations.workedOutBeforeTheWriter
            ? Result { try recentLocations.locations(of: write, keys: keys) } : nil
        writer.perform(
            staging: true,
            in: pass,
            { [self] round in
                // The indexes in force when the write runs (`setIndexes` changes them on the writer).
                let job = WriteJob(
                    write: write,
                    locations: locations,
                    authorize: authorize,
                    consuming: consuming,
                    namespace: name,
                    keys: keys,
                    indexes: registeredIndexes,
                    listIndexing: listIndexing,
                    triggers: triggers,
                    lookups: lookups,
                    clock: clock
                )
                return try job.run(in: round)
            },
            completion: completion
        )
    }

    /// Plans `write` against the current state without committing it and runs `authorize` on
    /// it (onDisconnect writes are judged when registered).
    /// - Throws: `StoreError` `.permissionDenied` when `authorize` refuses it; the write's own
    ///   errors (invalid update paths, ...).
    public func check(_ write: Write, authorize: WriteAuthorizer?) async throws {
        guard let authorize else { return }
        let now = clock()
        let unconditional = Write(write.operation)
        try await read { reader in
            let planned = try WritePlanner(reader: reader, batch: WriteBatch()).plan(unconditional, now: now)
            guard case .committed(_, let values) = planned,
                authorize(WriteProposal(write: unconditional, values: values, reader: reader, now: now))
            else { throw StoreError.permissionDenied }
        }
    }

    /// Calls `observer` with every later commit, in sequence order, after it is as durable as
    /// the sync mode promises and before its writer is acknowledged. It runs on the
    /// namespace's writer and must only hand the change on (never block or write).
    public func observeCommits(_ observer: @escaping @Sendable (CommittedWrite) -> Void) {
        writer.observe(observer)
    }

    /// Replaces the set of secondary indexes, building new ones over existing data.
    public func setIndexes(_ specs: [IndexSpec]) async throws {
        try await writer.perform { [self] round in
            let current = registered.withLock { $0 }
            var kept = current.filter { specs.contains($0.spec) }
            guard round.isRegistered else {
                // Nothing on disk yet, no data to build over: the definitions are written when
                // the namespace is.
                var nextID = (current.map(\.id).max() ?? 0) + 1
                for spec in specs where !kept.contains(where: { $0.spec == spec }) {
                    kept.append(RegisteredIndex(id: nextID, spec: spec))
                    nextID += 1
                }
                registered.withLock { $0 = kept }
                round.registerIndexesLater(kept)
                return
            }
            let removed = current.filter { !specs.contains($0.spec) }
            for index in removed {
                try round.commitUnsequenced(try readNow { IndexDefinitions.removal(of: index, reader: $0) })
            }
            registered.withLock { $0 = kept }
            var nextID = (current.map(\.id).max() ?? 0) + 1
            for spec in specs where !kept.contains(where: { $0.spec == spec }) {
                let index = RegisteredIndex(id: nextID, spec: spec)
                nextID += 1
                try readNow { reader in
                    try round.commitUnsequenced(IndexDefinitions.removal(of: index, reader: reader))
                }
                try readNow { reader in
                    try IndexBuilder(reader: reader, index: index) { batch in
                        try round.commitUnsequenced(batch)
                    }.build()
                }
                try round.commitUnsequenced(IndexDefinitions.definition(of: index, keys: keys))
                kept.append(index)
                registered.withLock { $0 = kept }
            }
        }
    }

    /// Milliseconds since 1970, the clock of server timestamps.
    public static func systemClock() -> Double {
        ServerClock.system.now()
    }
}
