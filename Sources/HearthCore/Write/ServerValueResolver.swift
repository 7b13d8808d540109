/// Turns the server values of a parsed write into plain values, as Firebase does at commit.
public enum ServerValueResolver {
    /// The node of `value` with every server value resolved and placed: a timestamp becomes
    /// `now` (milliseconds since the epoch); an increment becomes the existing number plus the
    /// increment, or the increment alone when the existing value is missing or not a number.
    /// A server-valued priority is set on the node at its path when that node exists.
    /// - Parameters:
    ///   - now: the commit time in milliseconds.
    ///   - existing: the current (pre-write) value at a path relative to the written location.
    public static func resolve(_ value: NewValue, now: Double, existing: (DataPath) -> Node?) -> Node? {
        // One server value at the location itself (a counter's increment): its leaf, keeping a
        // priority given with it.
        if value.serverValues.count == 1, !value.serverValues[0].isPriority, value.serverValues[0].path.isRoot {
            let resolved = resolvedLeaf(value.serverValues[0].value, now: now, existing: { existing(.root) })
            return .leaf(resolved, priority: value.node?.priority)
        }
        var node = value.node
        for placement in value.serverValues where !placement.isPriority {
            let resolved = resolvedLeaf(placement.value, now: now, existing: { existing(placement.path) })
            node = setting(node, at: placement.path[...], to: .leaf(resolved, priority: nil))
        }
        for placement in value.serverValues where placement.isPriority {
            let resolved: Priority
            switch placement.value {
            case .timestamp:
                resolved = .number(now)
            case .increment(let delta):
                if case .number(let n)? = existing(placement.path)?.priority {
                    resolved = .number(n + delta)
                } else {
                    resolved = .number(delta)
                }
            }
            node = settingPriority(node, at: placement.path[...], to: resolved)
        }
        return node
    }

    /// The value of one server value.
    public static func resolvedLeaf(_ value: ServerValue, now: Double, existing: () -> Node?) -> LeafValue {
        switch value {
        case .timestamp:
            return .number(now)
        case .increment(let delta):
            if case .leaf(.number(let n), _)? = existing() {
                return .number(n + delta)
            }
            return .number(delta)
        }
    }

    static func setting(_ node: Node?, at path: ArraySlice<ChildKey>, to leaf: Node) -> Node? {
        guard let key = path.first else {
            // Keep a priority given in the same write for this location.
            return leaf.withPriority(node?.priority)
        }
        var children: Children
        let priority = node?.priority
        if case .children(let existing, _)? = node {
            children = existing
        } else {
            children = Children()
        }
        children[key] = setting(children[key], at: path.dropFirst(), to: leaf)
        return .children(children, priority: node?.isLeaf == true ? nil : priority)
    }

    static func settingPriority(_ node: Node?, at path: ArraySlice<ChildKey>, to priority: Priority) -> Node? {
        guard let node else { return nil }
        guard let key = path.first else { return node.withPriority(priority) }
        guard case .children(var children, let p) = node, let child = children[key] else { return node }
        children[key] = settingPriority(child, at: path.dropFirst(), to: priority)
        return .children(children, priority: p)
    }
}

extension DataPath {
    /// The keys from `start` on, for recursive walks.
    subscript(_ range: UnboundedRange) -> ArraySlice<ChildKey> { keys[...] }
}
