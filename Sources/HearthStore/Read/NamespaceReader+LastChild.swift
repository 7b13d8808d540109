public import HearthCore

extension NamespaceReader {
    /// The last child of `path` in key order (or the last before `before`), with its subtree:
    /// one backward step of a cursor, then a read of that child alone. Nil when `path` has no
    /// such child (also when it is a leaf or absent).
    public func lastChild(at path: DataPath, before: ChildKey? = nil) -> (key: ChildKey, node: Node)? {
        guard let childKey = lastChildKey(at: path, before: before),
            let node = node(at: path.child(childKey))
        else { return nil }
        return (childKey, node)
    }

    /// The key of `path`'s last child in key order (or the last before `before`): one backward
    /// step of a cursor, nothing of the child read. Nil when `path` has no such child.
    func lastChildKey(at path: DataPath, before: ChildKey? = nil) -> ChildKey? {
        let prefix = keys.dataKey(path)
        let cursor = snapshot.makeIterator()
        if let before {
            var bound = prefix
            KeyEncoding.append(before, to: &bound)
            cursor.seek(bound)
            if cursor.isValid { cursor.previous() } else { cursor.seekToLast() }
        } else {
            cursor.seekToLast(withPrefix: prefix)
        }
        guard cursor.hasPrefix(prefix) else { return nil }
        let key = cursor.keyBytes
        // The node's own leaf or its priority (which sorts before every child): no child.
        guard key.count > prefix.count, key[prefix.count] != KeyEncoding.priorityMarker,
            let end = KeyEncoding.segmentEnd(key, from: prefix.count)
        else { return nil }
        return KeyEncoding.decodeKey(key, start: prefix.count, end: end)
    }
}
