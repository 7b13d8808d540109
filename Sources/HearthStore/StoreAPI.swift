public import HearthCore

/// Settings of a store.
public struct StoreConfiguration: Sendable {
    public enum SyncMode: Sendable, Equatable {
        /// Acknowledge after the write reached the OS (survives `kill -9`); fsync in the
        /// background at least every `milliseconds` while there are unsynced writes.
        case periodic(milliseconds: Int)
        /// Acknowledge only after an fsync; concurrent writes share each fsync.
        case always
    }

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
    /// A namespace writer whose jobs took longer than this on average (nanoseconds of CPU time) lately
    /// runs every round on its own thread, until they take less than half of it; below it, an
    /// event loop that hands it writes runs their round itself (`CallerDrains`). A round of
    /// expensive jobs on a loop would hold up its other connections: a small put takes about
    /// 5–15 µs, a message to a 100-member chat about 600 µs.
    public var loopJobLimit: UInt64 = CallerDrains.defaultLoopJobLimit
    /// A writer's home loop (`CallerDrains`) that has handed it no writes of its own for this
    /// long (nanoseconds) gives way to the next loop that does: a lone writer's loop then runs
    /// its rounds itself instead of waking the home for each of them. 100 ms by default.
    public var homeIdleLimit: UInt64 = CallerDrains.defaultHomeIdleLimit
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

/// Who made a write: what write triggers see as its author.
public enum WriteAuthor: Hashable, Sendable {
    /// The admin credential (rules bypassed).
    case admin
    /// A client without credentials.
    case anonymous
    /// A signed-in user.
    case user(uid: String)
    /// The server itself: onDisconnect replays, imports, callables.
    case system
}

/// One entry of a multi-path update: a path relative to the update's location and its value.
public struct UpdateEntry: Hashable, Sendable {
    public var path: DataPath
    public var value: NewValue

    public init(path: DataPath, value: NewValue) {
        self.path = path
        self.value = value
    }
}

/// A write to one namespace, applied atomically by the namespace's writer.
public struct Write: Hashable, Sendable {
    public enum Operation: Hashable, Sendable {
        /// Replace the node at a path (a null value deletes it).
        case set(DataPath, NewValue)
        /// Multi-path update at a location: every entry applied in one atomic step. Entry paths
        /// must not contain one another (checked by `Write.validate`).
        case update(DataPath, [UpdateEntry])
    }

    public var operation: Operation
    /// When set, the write applies only if the target location's current ETag equals it
    /// (`null_etag` for no data); otherwise `WriteResult.conditionFailed`.
    public var ifMatch: String?
    /// Who makes the write (write triggers see it).
    public var author: WriteAuthor

    public init(_ operation: Operation, ifMatch: String? = nil, author: WriteAuthor = .system) {
        self.operation = operation
        self.ifMatch = ifMatch
        self.author = author
    }
}

/// What a write did.
public enum WriteResult: Sendable, Equatable {
    /// Committed as sequence number `sequence` of the namespace; `values` are the written
    /// values with server values resolved (one for `set`, one per entry for `update`).
    case committed(sequence: UInt64, values: [Node?])
    /// `ifMatch` did not match: the location's current value and ETag.
    case conditionFailed(current: Node?, etag: String)
}

/// The top level of a shallow read.
public enum ShallowResult: Sendable, Equatable {
    case null
    case leaf(LeafValue)
    /// Children in key order; a leaf child's value, or nil for a child with children.
    case children([(key: ChildKey, leaf: LeafValue?)])

    public static func == (lhs: ShallowResult, rhs: ShallowResult) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.leaf(a), .leaf(b)): return a == b
        case let (.children(a), .children(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.leaf == $1.leaf }
        default: return false
        }
    }
}
