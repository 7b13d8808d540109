/// A write as committed, handed to commit observers in sequence order: what changed, with
/// server values resolved. Listeners, triggers and (later) a change feed follow it.
public struct CommittedWrite: Sendable, Equatable {
    /// What the write did.
    public enum Kind: Sendable, Equatable {
        /// The node at `location` was replaced (nil: deleted). A `location` whose last key is
        /// `.priority` set the parent's priority (the node is a number or string leaf, or nil).
        case set(Node?)
        /// Multi-path update at `location`: each child path (relative) was replaced.
        case update([(path: DataPath, node: Node?)])
        /// The subtree at `location` was rewritten in bulk (import): re-read it.
        case reset

        public static func == (lhs: Kind, rhs: Kind) -> Bool {
            switch (lhs, rhs) {
            case let (.set(a), .set(b)): return a == b
            case (.reset, .reset): return true
            case let (.update(a), .update(b)):
                return a.count == b.count && zip(a, b).allSatisfy { $0.path == $1.path && $0.node == $1.node }
            default: return false
            }
        }
    }

    /// The namespace's sequence number of this write.
    public let sequence: UInt64
    /// Where the write applied (the set path, or the update's base).
    public let location: DataPath
    public let kind: Kind
    /// The queues the write's triggers queued jobs (`ServerJob`) in, in this commit, each once:
    /// a queue's consumer looks for new work after a commit that queued any of its jobs.
    public var jobQueues: [String] = []

    public init(sequence: UInt64, location: DataPath, kind: Kind) {
        self.sequence = sequence
        self.location = location
        self.kind = kind
    }
}
