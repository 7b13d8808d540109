/// One ordered log of key-value batches shared by every node of a cluster
/// (`hearth serve --cluster`; the accounts' and the storage catalog's): each node's database is
/// a copy of it. A node appends a batch at the position after the last one it holds, and only
/// there (another node's append there first refuses it: the node catches up and makes its
/// change again), so every node applies the same batches in the same order (decision 0022).
///
/// The log is kept bounded by snapshots: a copy's whole state at one position, stored in chunks
/// and made visible by its head, after which the entries before the previous snapshot go
/// (`SharedLogFollower`). A copy that needs an entry no longer there installs the newest
/// snapshot instead.
///
/// The calls block: a store's writer makes them, one at a time, off the event loops.
public protocol SharedLog: Sendable {
    /// At most `limit` entries after `position`, in order.
    func entries(after position: Int64, limit: Int) throws -> [SharedLogEntry]

    /// Appends `batch` at `position`; false when that position is taken (another node wrote
    /// first). Whether a thrown append was kept is unknown: the next catch-up tells.
    func append(_ batch: [UInt8], at position: Int64) throws -> Bool

    /// The newest snapshot's head, nil when the log has none.
    func snapshotHead() throws -> SharedLogSnapshotHead?

    /// Chunk `chunk` of the snapshot at `position`, nil when it is gone (a newer snapshot
    /// replaced it).
    func snapshotChunk(at position: Int64, chunk: Int32) throws -> [UInt8]?

    /// Stores chunk `chunk` of the snapshot at `position` (again: the same bytes).
    func writeSnapshotChunk(_ data: [UInt8], at position: Int64, chunk: Int32) throws

    /// Makes the snapshot at `position` (its `chunks` stored) the newest, only when it is newer
    /// than the one there; false otherwise (its chunks are then removed, unless the newest is at
    /// `position`: another copy's, the same rows).
    func publishSnapshot(at position: Int64, chunks: Int32) throws -> Bool

    /// Removes the entries before `entriesBefore` and the chunks of snapshots before
    /// `snapshotsBefore`.
    func compact(entriesBefore: Int64, snapshotsBefore: Int64) throws
}

/// One batch of a shared log at its position (1, 2, 3, …).
public struct SharedLogEntry: Sendable, Equatable {
    public var position: Int64
    public var batch: [UInt8]

    public init(position: Int64, batch: [UInt8]) {
        self.position = position
        self.batch = batch
    }
}

/// A shared log's snapshot: the state of a copy at `position`, in `chunks` chunks (each a
/// `SharedLogBatch` of puts).
public struct SharedLogSnapshotHead: Sendable, Equatable {
    public var position: Int64
    public var chunks: Int32

    public init(position: Int64, chunks: Int32) {
        self.position = position
        self.chunks = chunks
    }
}
