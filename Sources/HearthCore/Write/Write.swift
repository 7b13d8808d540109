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
    /// Jobs queued in the write's commit before its triggers' (`ServerJob`): a server write's
    /// own outbox entries (a file to delete once the write committed). No client write has any.
    public var jobs: [ServerJob] = []

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
