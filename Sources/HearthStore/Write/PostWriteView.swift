import HearthCore

/// What a location will hold once the planned entries are applied: the entries' own values
/// where they cover it, otherwise the stored data minus the subtrees the entries replace.
struct PostWriteView {
    let reader: NamespaceReader
    let entries: [PlannedEntry]

    func state(of path: DataPath, ignoringPriority: Bool = true) -> IndexValueEncoding.Indexed {
        for entry in entries where !entry.isPriority && entry.path.contains(path) {
            let relative = entry.path.relative(path)!
            return IndexValueEncoding.Indexed(entry.node?.descendant(relative))
        }
        let below = entries.filter { !$0.isPriority && path.contains($0.path) }
        let putBelow = below.contains { $0.node != nil }
        let replaced = below.map(\.dataKey).sorted { $0.lexicographicallyPrecedes($1) }
        let prefix = reader.keys.dataKey(path)
        let cursor = reader.snapshot.makeIterator()
        cursor.seek(prefix)
        while cursor.hasPrefix(prefix) {
            let key = cursor.keyBytes
            if let hit = replaced.first(where: { KeyBytes.hasPrefix(key, $0) }) {
                guard let next = KeyBytes.successor(of: hit) else { break }
                cursor.seek(next)
                continue
            }
            if key.count == prefix.count {
                if putBelow { return .object }
                return ValueEncoding.decode(cursor.valueBytes).map { .leaf($0) } ?? .missing
            }
            if key.count == prefix.count + 1 && key[prefix.count] == KeyEncoding.priorityMarker {
                cursor.next()
                continue
            }
            return .object
        }
        return putBelow ? .object : .missing
    }
}
