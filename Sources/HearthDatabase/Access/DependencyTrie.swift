import HearthCore

/// The paths that live listens' read permissions depend on, by listen id, as a trie: a write at
/// `p` affects the listens with a dependency at, above or below `p`, found by walking `p`'s keys
/// and then the subtree under it — never by scanning every listen.
struct DependencyTrie {
    private struct Node {
        var ids: Set<UInt64> = []
        var children: [ChildKey: Node] = [:]

        var isEmpty: Bool { ids.isEmpty && children.isEmpty }

        mutating func insert(_ id: UInt64, keys: ArraySlice<ChildKey>) {
            guard let key = keys.first else {
                ids.insert(id)
                return
            }
            children[key, default: Node()].insert(id, keys: keys.dropFirst())
        }

        mutating func remove(_ id: UInt64, keys: ArraySlice<ChildKey>) {
            guard let key = keys.first else {
                ids.remove(id)
                return
            }
            guard var child = children[key] else { return }
            child.remove(id, keys: keys.dropFirst())
            children[key] = child.isEmpty ? nil : child
        }

        func collectSubtree(into result: inout Set<UInt64>) {
            result.formUnion(ids)
            for child in children.values { child.collectSubtree(into: &result) }
        }
    }

    private var root = Node()

    var isEmpty: Bool { root.isEmpty }

    mutating func insert(_ id: UInt64, at paths: [DataPath]) {
        for path in paths { root.insert(id, keys: path.keys[...]) }
    }

    mutating func remove(_ id: UInt64, at paths: [DataPath]) {
        for path in paths { root.remove(id, keys: path.keys[...]) }
    }

    /// The ids with a dependency at, above or below `path`.
    func affected(by path: DataPath, into result: inout Set<UInt64>) {
        var node = root
        result.formUnion(node.ids)
        for key in path.keys {
            guard let child = node.children[key] else { return }
            node = child
            result.formUnion(node.ids)
        }
        node.collectSubtree(into: &result)
    }
}
