/// Where a cluster's storage catalog lives (`hearth serve --cluster`): one ordered log of the
/// catalog's batches (objects' metadata), shared by every node. Each node's catalog is a copy
/// of it: a node appends a batch at the position after the last one it holds, and only there
/// (another node's append there first refuses it: the node catches up and makes the change
/// again), so every node applies the same batches in the same order.
///
/// The calls block: the store makes them under its change lock, off the event loops.
public protocol StorageLog: Sendable {
    /// At most `limit` entries after `position`, in order.
    func entries(after position: Int64, limit: Int) throws -> [StorageLogEntry]

    /// Appends `batch` at `position`; false when that position is taken (another node wrote
    /// first). Whether a thrown append was kept is unknown: the next catch-up tells.
    func append(_ batch: [UInt8], at position: Int64) throws -> Bool
}

/// One batch of the storage log at its position (1, 2, 3, …).
public struct StorageLogEntry: Sendable, Equatable {
    public var position: Int64
    public var batch: [UInt8]

    public init(position: Int64, batch: [UInt8]) {
        self.position = position
        self.batch = batch
    }
}

/// Where a cluster's objects' bytes live: each generation's bytes in pieces of at most
/// `ObjectStore.sharedPieceBytes`, numbered 0, 1, 2, …, written before the catalog batch that
/// names the generation is appended. A node's files are a cache of them.
///
/// The calls block (off the event loops).
public protocol SharedObjectBytes: Sendable {
    /// A generation no node was given before, at least `atLeast`.
    func reserveGeneration(atLeast: UInt64) throws -> UInt64

    /// Stores piece `piece` of `generation`'s bytes.
    func write(_ bytes: [UInt8], generation: String, piece: Int) throws

    /// Piece `piece` of `generation`'s bytes; nil past the last one (or when they are gone).
    func read(generation: String, piece: Int) throws -> [UInt8]?

    /// Gives `target` a copy of `source`'s bytes.
    func copy(generation source: String, to target: String) throws

    /// Removes `generation`'s bytes.
    func delete(generation: String) throws

    /// The generations holding bytes, none of them written in the last `seconds` seconds.
    func generations(untouchedFor seconds: Int) throws -> [String]
}
