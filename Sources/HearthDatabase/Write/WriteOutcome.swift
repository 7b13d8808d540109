public import HearthCore

/// What a conditional write (`NamespaceEngine.write(_:as:returningETagAt:)`) did.
public enum WriteOutcome: Sendable {
    /// Committed: the values written (server values resolved; one per update entry) and, when
    /// asked for, the ETag of the location after the write.
    case committed(values: [Node?], etag: String?)
    /// `ifMatch` did not match: the location's current value and its ETag; nothing was written.
    case conditionFailed(current: Node?, etag: String)
}
