import HearthCore

/// What a location will hold once the planned entries are applied: the entries' own values
/// where they cover it, otherwise the stored data minus the subtrees the entries replace.
struct PostWriteView {
    let reader: NamespaceReader
    let entries: [PlannedEntry]
    /// What the writer remembers (a leaf it wrote is answered without a read); nil: nothing.
    var shapes: SubtreeShapes? = nil
    /// Notes every path whose state is read from the snapshot; nil: not noted.
    var reads: ReadLog? = nil
    /// Non-priority entries by path, and their data keys in byte order (for "entries below").
    private let byPath: [DataPath: Int]
    private let sortedKeys: [(key: [UInt8], index: Int)]

    /// Up to this many entries are searched one by one (no dictionary to build).
    private static let linearEntries = 8

    init(reader: NamespaceReader, entries: [PlannedEntry], shapes: SubtreeShapes? = nil, reads: ReadLog? = nil) {
        self.reader = reader
        self.entries = entries
        self.shapes = shapes
        self.reads = reads
        var byPath: [DataPath: Int] = [:]
        var sortedKeys: [(key: [UInt8], index: Int)] = []
        let indexed = entries.count > Self.linearEntries
        for (index, entry) in entries.enumerated() where !entry.isPriority {
            if indexed { byPath[entry.path] = index }
            sortedKeys.append((entry.dataKey, index))
        }
        if sortedKeys.count > 1 { sortedKeys.sort { $0.key.lexicographicallyPrecedes($1.key) } }
        self.byPath = byPath
        self.sortedKeys = sortedKeys
    }

    /// The entry whose path is `path` or one of its ancestors.
    private func coveringEntry(_ path: DataPath) -> PlannedEntry? {
        if entries.count <= Self.linearEntries {
            // Update paths are disjoint: at most one entry covers `path`.
            return entries.first { !$0.isPriority && $0.path.contains(path) }
        }
        guard !byPath.isEmpty else { return nil }
        var keys = path.keys
        while true {
            if let index = byPath[DataPath(keys: keys)] { return entries[index] }
            if keys.isEmpty { return nil }
            keys.removeLast()
        }
    }

    /// Entries strictly below the location with data key `prefix`, in byte order.
    private func entriesBelow(_ prefix: [UInt8]) -> [PlannedEntry] {
        var low = 0
        var high = sortedKeys.count
        while low < high {
            let mid = (low + high) / 2
            if sortedKeys[mid].key.lexicographicallyPrecedes(prefix) { low = mid + 1 } else { high = mid }
        }
        var result: [PlannedEntry] = []
        while low < sortedKeys.count && sortedKeys[low].key.starts(with: prefix) {
            if sortedKeys[low].key.count > prefix.count { result.append(entries[sortedKeys[low].index]) }
            low += 1
        }
        return result
    }

    /// The replaced prefix that `key` starts with, if any (`sorted` in byte order, no prefix of
    /// another since update paths are disjoint): the greatest one not above `key`.
    private static func replacedPrefix(of key: UnsafeRawBufferPointer, in sorted: [[UInt8]]) -> [UInt8]? {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if KeyBytes.compare(key, sorted[mid]) >= 0 { low = mid + 1 } else { high = mid }
        }
        guard low > 0, KeyBytes.hasPrefix(key, sorted[low - 1]) else { return nil }
        return sorted[low - 1]
    }

    func state(of path: DataPath) -> IndexValueEncoding.Indexed {
        if let entry = coveringEntry(path) {
            return IndexValueEncoding.Indexed(entry.node?.descendant(entry.path.relative(path)!))
        }
        let prefix = reader.keys.dataKey(path)
        let below = entriesBelow(prefix)
        // Data put below a location makes it an object, whatever was there.
        if below.contains(where: { $0.node != nil }) { return .object }
        if below.isEmpty, let leaf = shapes?.rememberedLeaf(at: prefix) { return .leaf(leaf) }
        reads?.note(path)
        let replaced = below.map(\.dataKey)
        let cursor = reader.snapshot.makeIterator()
        cursor.seek(prefix)
        while cursor.hasPrefix(prefix) {
            let key = cursor.keyBytes
            if let hit = PostWriteView.replacedPrefix(of: key, in: replaced) {
                guard let next = KeyBytes.successor(of: hit) else { break }
                cursor.seek(next)
                continue
            }
            if key.count == prefix.count {
                return ValueEncoding.decode(cursor.valueBytes).map { .leaf($0) } ?? .missing
            }
            if key.count == prefix.count + 1 && key[prefix.count] == KeyEncoding.priorityMarker {
                cursor.next()
                continue
            }
            return .object
        }
        return .missing
    }
}
