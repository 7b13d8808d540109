public import HearthCore

/// What a rule sees of a node without reading its subtree: absent, a leaf, or an object.
public enum RuleNodeSummary: Hashable, Sendable {
    case absent
    case leaf(LeafValue)
    case children
}

/// The database as rules read it, lazily and by path, so that `root.child('users').child(auth.uid)`
/// reads that one node. The store implements it over a consistent snapshot; `RuleMemorySource`
/// and `RuleOverlaySource` are the in-memory and "after the write" implementations.
///
/// Only `node(at:)` is required; implement the others when the store can answer them without
/// materialising a subtree (rules call `summary` for `val()`, `exists()`, `isString()`, ...).
public protocol RuleDataSource {
    /// The whole node at `path`, or nil when there is no data there.
    func node(at path: DataPath) -> Node?
    /// Whether there is data at `path`, and its value when it is a leaf.
    func summary(at path: DataPath) -> RuleNodeSummary
    /// The priority of the node at `path`.
    func priority(at path: DataPath) -> Priority?
}

extension RuleDataSource {
    public func summary(at path: DataPath) -> RuleNodeSummary {
        RuleNodeSummary(node(at: path))
    }

    public func priority(at path: DataPath) -> Priority? {
        node(at: path)?.priority
    }
}

extension RuleNodeSummary {
    /// The summary of a node.
    public init(_ node: Node?) {
        switch node {
        case nil: self = .absent
        case .leaf(let value, _)?: self = .leaf(value)
        case .children?: self = .children
        }
    }
}

/// A data source over a tree held in memory (tests, `hearth rules test`).
public struct RuleMemorySource: RuleDataSource, Sendable {
    public var root: Node?

    public init(root: Node?) {
        self.root = root
    }

    public func node(at path: DataPath) -> Node? {
        root?.descendant(path)
    }
}

/// The database as it will be after a write: a base source with nodes written at paths, in
/// order (a later write at or under an earlier one wins there). A `set` is one write; a
/// multi-path update is one write per changed path. Nil nodes are deletions.
public struct RuleOverlaySource: RuleDataSource {
    public let base: any RuleDataSource
    public let writes: [(path: DataPath, node: Node?)]

    public init(base: any RuleDataSource, writes: [(path: DataPath, node: Node?)]) {
        self.base = base
        self.writes = writes
    }

    public func node(at path: DataPath) -> Node? {
        // The last write at or above `path` gives the starting value; writes after it that lie
        // strictly below `path` are applied on top.
        var startIndex = 0
        var value: Node?
        var covered = false
        for (i, write) in writes.enumerated().reversed() where write.path.contains(path) {
            value = write.node?.descendant(DataPath(keys: Array(path.keys[write.path.depth...])))
            startIndex = i + 1
            covered = true
            break
        }
        if !covered { value = base.node(at: path) }
        for write in writes[startIndex...] where path.contains(write.path) && write.path != path {
            value = NodeEditing.setting(value, at: write.path.keys[path.depth...], to: write.node)
        }
        return value
    }

    public func summary(at path: DataPath) -> RuleNodeSummary {
        var touched = false
        for write in writes where write.path.contains(path) || path.contains(write.path) {
            touched = true
            break
        }
        return touched ? RuleNodeSummary(node(at: path)) : base.summary(at: path)
    }

    public func priority(at path: DataPath) -> Priority? {
        for write in writes where write.path.contains(path) || path.contains(write.path) {
            return node(at: path)?.priority
        }
        return base.priority(at: path)
    }
}

/// Replacing a descendant of a node, with Firebase's tree rules: an object left without
/// children is null, and writing under a leaf turns it into an object.
public enum NodeEditing {
    /// `node` with the descendant at `keys` replaced by `newValue`.
    public static func setting(_ node: Node?, at keys: ArraySlice<ChildKey>, to newValue: Node?) -> Node? {
        guard let key = keys.first else { return newValue }
        var children: Children
        var priority: Priority?
        switch node {
        case .children(let existing, let p)?:
            children = existing
            priority = p
        case .leaf(_, let p)?:
            children = Children()
            priority = p
        case nil:
            children = Children()
        }
        let updated = setting(children[key], at: keys.dropFirst(), to: newValue)
        children[key] = updated
        return children.isEmpty ? nil : .children(children, priority: priority)
    }

    /// `root` with the node at `path` replaced by `newValue`.
    public static func setting(_ root: Node?, at path: DataPath, to newValue: Node?) -> Node? {
        setting(root, at: path.keys[...], to: newValue)
    }
}
