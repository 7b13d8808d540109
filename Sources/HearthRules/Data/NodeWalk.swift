public import HearthCore

/// Reading below a node without copying the nodes on the way: each step passes its child
/// borrowed out of the parent's storage (no retain or release per level).
enum NodeWalk {
    /// The summary of the node at `keys` below `node`.
    static func summary(_ node: Node, _ keys: ArraySlice<ChildKey>) -> RuleNodeSummary {
        keys.withUnsafeBufferPointer { summary(node, $0, 0, $0, $0.count) }
    }

    /// The summary of the node at `keys` then `more` below `node`.
    static func summary(_ node: Node, _ keys: ArraySlice<ChildKey>, _ more: ArraySlice<ChildKey>) -> RuleNodeSummary {
        keys.withUnsafeBufferPointer { k in more.withUnsafeBufferPointer { m in summary(node, k, 0, m, 0) } }
    }

    /// The node at `keys[i...]` then `more[j...]` below `node` (`j == more.count` when done).
    private static func summary(
        _ node: Node,
        _ keys: UnsafeBufferPointer<ChildKey>,
        _ i: Int,
        _ more: UnsafeBufferPointer<ChildKey>,
        _ j: Int
    ) -> RuleNodeSummary {
        let inKeys = i < keys.count
        guard inKeys || j < more.count else {
            switch node {
            case .leaf(let value, _): return .leaf(value)
            case .children: return .children
            }
        }
        guard case .children(let children, _) = node else { return .absent }
        let (found, index) = children.search(inKeys ? keys[i] : more[j])
        guard found else { return .absent }
        return children.nodes.withUnsafeBufferPointer {
            summary($0[index], keys, inKeys ? i + 1 : i, more, inKeys ? j : j + 1)
        }
    }

    /// The priority of the node at `keys` below `node`.
    static func priority(_ node: Node, _ keys: ArraySlice<ChildKey>) -> Priority?? {
        guard let key = keys.first else { return .some(node.priority) }
        guard case .children(let children, _) = node else { return nil }
        let (found, index) = children.search(key)
        guard found else { return nil }
        return priority(children.nodes[index], keys.dropFirst())
    }
}

extension RuleMemorySource {
    public func summary(at path: DataPath) -> RuleNodeSummary {
        summary(at: path.keys[...])
    }

    public func priority(at path: DataPath) -> Priority? {
        guard let root else { return nil }
        return NodeWalk.priority(root, path.keys[...]) ?? nil
    }
}
