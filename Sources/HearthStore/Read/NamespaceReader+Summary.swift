public import HearthCore

/// What is at a location without materialising its subtree: what security rules read for
/// `exists()`, `val()` of a leaf, `isString()`, ...
public enum StoredSummary: Hashable, Sendable {
    case absent
    case leaf(LeafValue)
    case children
}

extension NamespaceReader {
    /// Whether there is data at `path`, and its value when it is a leaf: one seek, or none when
    /// the writer knows (`memory`).
    public func summary(at path: DataPath) -> StoredSummary {
        let prefix = keys.dataKey(path)
        guard let memory else { return storedSummary(prefix) }
        return memory.summary(at: prefix) { storedSummary(prefix) }
    }

    /// What the snapshot holds at the data key `prefix`: one seek.
    private func storedSummary(_ prefix: [UInt8]) -> StoredSummary {
        let cursor = snapshot.makeIterator()
        cursor.seek(prefix)
        guard cursor.hasPrefix(prefix) else { return .absent }
        if cursor.keyBytes.count == prefix.count {
            return ValueEncoding.decode(cursor.valueBytes).map { .leaf($0) } ?? .absent
        }
        return .children
    }

    /// The value at `path` when it is a leaf; nil when it is absent or has children. One point
    /// read, no cursor: the cheapest way to look at many scattered leaves.
    public func leaf(at path: DataPath) -> LeafValue? {
        guard let bytes = snapshot.get(keys.dataKey(path)) else { return nil }
        return bytes.withUnsafeBytes { ValueEncoding.decode($0) }
    }

    /// The priority of the node at `path`: one point read.
    public func priority(at path: DataPath) -> Priority? {
        guard let bytes = snapshot.get(keys.priorityKey(path)) else { return nil }
        return bytes.withUnsafeBytes { ValueEncoding.decodePriority($0) }
    }
}
