/// One ordered log of key-value batches shared by every node of a cluster
/// (`hearth serve --cluster`; the accounts' and the storage catalog's): each node's database is
/// a copy of it. A node appends a batch at the position after the last one it holds, and only
/// there (another node's append there first refuses it: the node catches up and makes its
/// change again), so every node applies the same batches in the same order (decision 0022).
///
/// The calls block: a store's writer makes them, one at a time, off the event loops.
public protocol SharedLog: Sendable {
    /// At most `limit` entries after `position`, in order.
    func entries(after position: Int64, limit: Int) throws -> [SharedLogEntry]

    /// Appends `batch` at `position`; false when that position is taken (another node wrote
    /// first). Whether a thrown append was kept is unknown: the next catch-up tells.
    func append(_ batch: [UInt8], at position: Int64) throws -> Bool
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
