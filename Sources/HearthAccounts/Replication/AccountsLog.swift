/// Where a cluster's accounts live (`hearth serve --cluster`): one ordered log of the accounts'
/// batches, shared by every node. Each node's accounts database is a copy of it: a node appends
/// a batch at the position after the last one it holds, and only there (another node's append
/// there first refuses it: the node catches up and runs the change again), so every node
/// applies the same batches in the same order.
///
/// The calls block: the accounts' writer queue makes them, one at a time.
public protocol AccountsLog: Sendable {
    /// At most `limit` entries after `position`, in order.
    func entries(after position: Int64, limit: Int) throws -> [AccountsLogEntry]

    /// Appends `batch` at `position`; false when that position is taken (another node wrote
    /// first). Whether a thrown append was kept is unknown: the next catch-up tells.
    func append(_ batch: [UInt8], at position: Int64) throws -> Bool
}

/// One batch of the accounts' log at its position (1, 2, 3, …).
public struct AccountsLogEntry: Sendable, Equatable {
    public var position: Int64
    public var batch: [UInt8]

    public init(position: Int64, batch: [UInt8]) {
        self.position = position
        self.batch = batch
    }
}
