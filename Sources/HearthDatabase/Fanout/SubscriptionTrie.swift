import HearthCore
import HearthProtocol

/// The listened locations as a trie of path keys, each node holding the subscription groups
/// (one per canonical query) at its path. A change at a path finds the groups at its
/// ancestors, at it and below it by walking the path, never by scanning every listener.
struct SubscriptionTrie {
    final class TrieNode {
        var children: [ChildKey: TrieNode] = [:]
        var groups: [QueryIdentifier: SubscriptionGroup] = [:]
    }

    private(set) var root = TrieNode()

    /// The group for (path, identifier), created by `make` when missing.
    mutating func group(
        at path: DataPath,
        identifier: QueryIdentifier,
        make: () -> SubscriptionGroup
    ) -> SubscriptionGroup {
        var node = root
        for key in path.keys {
            if let next = node.children[key] {
                node = next
            } else {
                let next = TrieNode()
                node.children[key] = next
                node = next
            }
        }
        if let group = node.groups[identifier] { return group }
        let group = make()
        node.groups[identifier] = group
        return group
    }

    /// Removes a group and the trie nodes left empty.
    mutating func remove(_ group: SubscriptionGroup) {
        var trail: [(TrieNode, ChildKey)] = []
        var node = root
        for key in group.path.keys {
            guard let next = node.children[key] else { return }
            trail.append((node, key))
            node = next
        }
        guard node.groups[group.identifier] === group else { return }
        node.groups[group.identifier] = nil
        while let (parent, key) = trail.popLast(), let child = parent.children[key],
            child.groups.isEmpty, child.children.isEmpty
        {
            parent.children[key] = nil
        }
    }

    /// The groups whose data a change can affect: the groups at `base` and its ancestors, and
    /// for each of `paths` (relative to `base`; `[.root]` for a change of `base` itself) the
    /// groups between `base` and it, at it and below it. Each group once.
    func groups(at base: DataPath, touching paths: [DataPath]) -> [SubscriptionGroup] {
        var found: [SubscriptionGroup] = []
        var seen = Set<ObjectIdentifier>()
        func collect(_ node: TrieNode) {
            for group in node.groups.values where seen.insert(ObjectIdentifier(group)).inserted {
                found.append(group)
            }
        }
        func collectBelow(_ node: TrieNode) {
            var stack = Array(node.children.values)
            while let next = stack.popLast() {
                collect(next)
                stack.append(contentsOf: next.children.values)
            }
        }
        var node = root
        collect(node)
        for key in base.keys {
            guard let next = node.children[key] else { return found }
            node = next
            collect(node)
        }
        let baseNode = node
        var belowDone = Set<ObjectIdentifier>()
        paths: for path in paths {
            var current = baseNode
            for key in path.keys {
                guard let next = current.children[key] else { continue paths }
                current = next
                collect(current)
            }
            if belowDone.insert(ObjectIdentifier(current)).inserted { collectBelow(current) }
        }
        return found
    }
}
