public import HearthCore

/// Reading below a node without copying the nodes on the way (each step borrows its child).
enum NodeWalk {
    /// The summary of the node at `keys` below `node`.
    static func summary(_ node: Node, _ keys: ArraySlice<ChildKey>) -> RuleNodeSummary {
        guard let key = keys.first else {
            switch node {
            case .leaf(let value, _): return .leaf(value)
            case .children: return .children
            }
        }
        guard case .children(let children, _) = node else { return .absent }
        let (found, index) = children.search(key)
        guard found else { return .absent }
        return summary(children.nodes[index], keys.dropFirst())
    }

    /// The summary of the node at `keys` then `more` below `node`.
    static func summary(_ node: Node, _ keys: ArraySlice<ChildKey>, _ more: ArraySlice<ChildKey>) -> RuleNodeSummary {
        guard let key = keys.first else { return summary(node, more) }
        guard case .children(let children, _) = node else { return .absent }
        let (found, index) = children.search(key)
        guard found else { return .absent }
        return summary(children.nodes[index], keys.dropFirst(), more)
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
        guard let root else { return .absent }
        return NodeWalk.summary(root, path.keys[...])
    }

    public func priority(at path: DataPath) -> Priority? {
        guard let root else { return nil }
        return NodeWalk.priority(root, path.keys[...]) ?? nil
    }
}
