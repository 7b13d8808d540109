/// A non-null node of the JSON tree, as Firebase models it: a leaf or a non-empty set of
/// children, each with an optional priority. `null` is the absence of a node (`Node?`).
public enum Node: Hashable, Sendable {
    case leaf(LeafValue, priority: Priority?)
    case children(Children, priority: Priority?)

    public var priority: Priority? {
        switch self {
        case .leaf(_, let priority), .children(_, let priority): return priority
        }
    }

    /// The same node with another priority.
    public func withPriority(_ priority: Priority?) -> Node {
        switch self {
        case .leaf(let value, _): return .leaf(value, priority: priority)
        case .children(let children, _): return .children(children, priority: priority)
        }
    }

    public var isLeaf: Bool {
        if case .leaf = self { return true }
        return false
    }

    /// The child at `key`, or nil (also for a leaf).
    public func child(_ key: ChildKey) -> Node? {
        guard case .children(let children, _) = self else { return nil }
        return children[key]
    }

    /// The node at a relative path, or nil.
    public func descendant(_ path: DataPath) -> Node? {
        var node: Node? = self
        for key in path.keys {
            node = node?.child(key)
            if node == nil { return nil }
        }
        return node
    }
}

/// The children of a node, kept sorted by `ChildKey` order; never empty inside a `Node`.
public struct Children: Hashable, Sendable, RandomAccessCollection {
    public private(set) var keys: [ChildKey]
    public private(set) var nodes: [Node]

    public init() {
        keys = []
        nodes = []
    }

    /// Builds from pairs in any order; a later duplicate key replaces an earlier one.
    public init<S: Sequence>(unsorted pairs: S) where S.Element == (ChildKey, Node) {
        // Sort by key, then by position, so that the last of equal keys wins below.
        var all = pairs.enumerated().map { (key: $0.element.0, node: $0.element.1, offset: $0.offset) }
        all.sort {
            let c = ChildKey.compare($0.key, $1.key)
            return c != 0 ? c < 0 : $0.offset < $1.offset
        }
        keys = []
        nodes = []
        keys.reserveCapacity(all.count)
        nodes.reserveCapacity(all.count)
        for (key, node, _) in all {
            if let last = keys.last, last == key {
                nodes[nodes.count - 1] = node
            } else {
                keys.append(key)
                nodes.append(node)
            }
        }
    }

    /// Builds from pairs already sorted by key with no duplicates (not checked in release).
    public init(sortedKeys: [ChildKey], nodes: [Node]) {
        assert(sortedKeys.count == nodes.count)
        self.keys = sortedKeys
        self.nodes = nodes
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }
    public subscript(position: Int) -> (key: ChildKey, node: Node) { (keys[position], nodes[position]) }

    /// Index of `key` or the position where it would be inserted.
    public func search(_ key: ChildKey) -> (found: Bool, index: Int) {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            let c = ChildKey.compare(keys[mid], key)
            if c == 0 { return (true, mid) }
            if c < 0 { low = mid + 1 } else { high = mid }
        }
        return (false, low)
    }

    /// The child at `key`; setting nil removes it.
    public subscript(key: ChildKey) -> Node? {
        get {
            let (found, index) = search(key)
            return found ? nodes[index] : nil
        }
        set {
            let (found, index) = search(key)
            switch (found, newValue) {
            case (true, let node?): nodes[index] = node
            case (true, nil):
                keys.remove(at: index)
                nodes.remove(at: index)
            case (false, let node?):
                keys.insert(key, at: index)
                nodes.insert(node, at: index)
            case (false, nil): break
            }
        }
    }
}
