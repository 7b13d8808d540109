public import HearthCore

/// Settings of a store.
public struct StoreConfiguration: Sendable {
    /// How writes reach the disk (`SyncMode`).
    public typealias SyncMode = HearthCore.SyncMode

    public var syncMode: SyncMode
    /// Upper bound of one LevelDB write buffer (memtable) in bytes. Every write inserts each of
    /// its keys into the memtable's skip list, a search that chases pointers through all of it:
    /// hot keys (counters, presence, chat lists) rewritten again and again fill it with versions,
    /// and a larger memtable makes every insert slower. 8 MiB ran the 100-member fan-out write
    /// 1.3–1.6× as fast as 32 MiB (docs/decisions/0006-leveldb-write-buffer-8-mib.md).
    public var writeBufferSize: Int
    /// The write triggers and durable commit observers of each namespace (see `WriteTrigger`).
    public var triggers: WriteTriggers
    /// Whether opening a namespace brings its lookup indexes in line with `triggers` (rebuilds
    /// stale ones, drops unregistered ones). Off only for a store that will not be written (an
    /// export): it then leaves them as they are.
    public var reconcilesLookups = true
    /// `WriterTuning.loopJobLimit` in nanoseconds (unchecked here: tests of the store set
    /// extremes; `Database.open` validates the tuning).
    public var loopJobLimit = UInt64(WriterTuning().loopJobLimit.nanoseconds)
    /// `WriterTuning.homeIdleLimit` in nanoseconds.
    public var homeIdleLimit = UInt64(WriterTuning().homeIdleLimit.nanoseconds)
    /// `WriterTuning.loopProbeInterval` in nanoseconds.
    public var loopProbeInterval = UInt64(WriterTuning().loopProbeInterval.nanoseconds)
    /// In a cluster: the changelog of each namespace this node owns, asked for when the
    /// namespace opens (`ReplicationSink`); nil for a namespace that is not replicated. The
    /// caller opens a namespace only once its local copy has caught up with the changelog
    /// (`Store.applyReplicated`).
    public var replication: (@Sendable (String) -> ReplicationSink?)?
    /// In a cluster: whether a namespace may be opened now (this node owns it and caught its
    /// copy up); `Store.namespace` refuses any other with `StoreError.notOwner`. Nil: all may.
    public var opens: (@Sendable (String) -> Bool)?
    /// In a cluster: told when the store's replicated writers end a pass of rounds whose
    /// appends the sinks may hold (`ReplicationSink.Timing.afterPass`): they are sent now.
    public var replicatedPassEnded: (@Sendable () -> Void)?
    /// Children an indexed list may hold and keep no index entries: a query orders such a
    /// list's children as it reads them, and a write to one of them changes no entry. A query
    /// that finds more has the writer build the list's entries, kept from then on
    /// (docs/decisions/0024). At least 0 (0: every list a query reads gets entries).
    public var smallListLimit = StoreConfiguration.defaultSmallListLimit
    public static let defaultSmallListLimit = 128
    /// Where the namespace writers' batches go: LevelDB itself, or in tests a wrapper that
    /// counts or refuses them (`BatchWriter`).
    var batchWriter: @Sendable (LevelDB) -> BatchWriter = BatchWriter.levelDB

    public init(
        syncMode: SyncMode = .periodic(milliseconds: 100),
        writeBufferSize: Int = 8 << 20,
        triggers: WriteTriggers = WriteTriggers()
    ) {
        self.syncMode = syncMode
        self.writeBufferSize = writeBufferSize
        self.triggers = triggers
    }
}
