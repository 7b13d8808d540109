public import HearthCore

/// A write about to commit, as the caller's access check sees it: run on the namespace's serial
/// writer, so `reader` is the latest state and nothing commits between the check and the write
/// (a create-only rule cannot race).
public struct WriteProposal {
    /// The namespace before the write.
    public let reader: NamespaceReader
    /// Where the write happens (a `set`'s path, an `update`'s location).
    public let location: DataPath
    /// Every path written (absolute) and its new value with server values resolved; nil deletes.
    /// A path ending in `.priority` sets its parent's priority.
    public let changes: [(path: DataPath, node: Node?)]
    /// The server time the write's timestamps resolved to (milliseconds since 1970).
    public let now: Double
    /// When set, the check notes in it every path it reads from `reader`: the writer then
    /// knows whether writes staged in its round (not in `reader`) could change the verdict.
    public let reads: ReadLog?
}

/// Decides whether a proposed write may commit; false refuses it with
/// `StoreError.permissionDenied` and nothing is written. Must not block or write.
public typealias WriteAuthorizer = @Sendable (WriteProposal) -> Bool

extension WriteProposal {
    init(write: Write, values: [Node?], reader: NamespaceReader, now: Double, reads: ReadLog? = nil) {
        self.reader = reader
        self.now = now
        self.reads = reads
        switch write.operation {
        case .set(let path, _):
            location = path
            changes = [(path, values.first ?? nil)]
        case .update(let path, let entries):
            location = path
            changes = zip(entries, values).map { (path.appending($0.path), $1) }
        }
    }
}
