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
    /// The tree lives in a box so that the source fits in an existential's inline buffer (the
    /// evaluator holds its sources as `any RuleDataSource`: no allocation per decision).
    private final class Storage: Sendable {
        let root: Node?
        init(_ root: Node?) { self.root = root }

        /// Reads `root` in place (no copy of the root node per lookup).
        func summary(at keys: ArraySlice<ChildKey>) -> RuleNodeSummary {
            guard case .some(let root) = root else { return .absent }
            return NodeWalk.summary(root, keys)
        }
    }

    private var storage: Storage

    public var root: Node? {
        get { storage.root }
        set { storage = Storage(newValue) }
    }

    public init(root: Node?) {
        self.storage = Storage(root)
    }

    public func node(at path: DataPath) -> Node? {
        root?.descendant(path)
    }

    func summary(at keys: ArraySlice<ChildKey>) -> RuleNodeSummary {
        storage.summary(at: keys)
    }
}

/// The database as it will be after a write: a base source with nodes written at paths, in
/// order (a later write at or under an earlier one wins there). A `set` is one write; a
/// multi-path update is one write per changed path. Nil nodes are deletions.
public struct RuleOverlaySource: RuleDataSource {
    /// Boxed, so that the source fits in an existential's inline buffer (see `RuleMemorySource`).
    private final class Storage {
        let base: any RuleDataSource
        let writes: [(path: DataPath, node: Node?)]

        init(base: any RuleDataSource, writes: [(path: DataPath, node: Node?)]) {
            self.base = base
            self.writes = writes
        }
    }

    private let storage: Storage
    public var base: any RuleDataSource { storage.base }
    public var writes: [(path: DataPath, node: Node?)] { storage.writes }

    public init(base: any RuleDataSource, writes: [(path: DataPath, node: Node?)]) {
        self.storage = Storage(base: base, writes: writes)
    }

    public func node(at path: DataPath) -> Node? {
        // The last write at or above `path` gives the starting value; writes after it that lie
        // strictly below `path` are applied on top.
        let writes = storage.writes
        var startIndex = 0
        var value: Node?
        var covered = false
        for i in writes.indices.reversed() where RuleKeys.contains(writes[i].path, path) {
            value = Self.descendant(writes[i].node, path.keys, from: writes[i].path.depth)
            startIndex = i + 1
            covered = true
            break
        }
        if !covered { value = storage.base.node(at: path) }
        for write in writes[startIndex...] where write.path.depth > path.depth && RuleKeys.contains(path, write.path) {
            value = NodeEditing.setting(value, at: write.path.keys[path.depth...], to: write.node)
        }
        return value
    }

    public func summary(at path: DataPath) -> RuleNodeSummary {
        let writes = storage.writes
        guard touches(path, writes) else { return storage.base.summary(at: path) }
        // The common case: the last write that touches `path` is at or above it.
        if let last = writes.lastIndex(where: { RuleKeys.contains($0.path, path) || RuleKeys.contains(path, $0.path) }),
            RuleKeys.contains(writes[last].path, path)
        {
            guard let node = writes[last].node else { return .absent }
            return NodeWalk.summary(node, path.keys[writes[last].path.depth...])
        }
        // An ancestor of the writes (`.validate` runs on them): a value written below it makes it
        // an object, without materialising its subtree (which grows with every push under it).
        let after = (writes.lastIndex { RuleKeys.contains($0.path, path) } ?? -1) + 1
        if writes[after...].contains(where: {
            $0.node != nil && $0.path.depth > path.depth && RuleKeys.contains(path, $0.path)
        }) {
            return .children
        }
        return RuleNodeSummary(node(at: path))
    }

    public func priority(at path: DataPath) -> Priority? {
        guard touches(path, storage.writes) else { return storage.base.priority(at: path) }
        return node(at: path)?.priority
    }

    /// True when a write lies at, above or below `path`.
    private func touches(_ path: DataPath, _ writes: [(path: DataPath, node: Node?)]) -> Bool {
        for write in writes where RuleKeys.contains(write.path, path) || RuleKeys.contains(path, write.path) {
            return true
        }
        return false
    }

    /// The node at `keys[start...]` below `node`.
    private static func descendant(_ node: Node?, _ keys: [ChildKey], from start: Int) -> Node? {
        var n = node
        for i in start..<keys.count {
            guard case .children(let children, _)? = n else { return nil }
            n = children[keys[i]]
        }
        return n
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
