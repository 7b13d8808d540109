public import HearthCore

/// A data push to a listener: `a:"d"` (the value at `path` is now `node`) or `a:"m"` (these
/// children of `path` changed), with the tag of the query when it has one.
public struct DataUpdate: Sendable, Equatable {
    /// What changed.
    public enum Change: Sendable, Equatable {
        /// `d`: the whole value at the path (nil: it was removed).
        case set(Node?)
        /// `m`: children at these relative paths were set (nil: removed); others are unchanged.
        case merge([UpdatedChild])
    }

    public var path: DataPath
    public var change: Change
    /// `t`: the tag the client gave the query in its listen; nil for default listens.
    public var tag: Int64?

    public init(path: DataPath, change: Change, tag: Int64? = nil) {
        self.path = path
        self.change = change
        self.tag = tag
    }
}

/// One child in a merge push: its path relative to the update's path and its new value.
public struct UpdatedChild: Sendable, Equatable {
    public var path: DataPath
    public var node: Node?

    public init(path: DataPath, node: Node?) {
        self.path = path
        self.node = node
    }
}
