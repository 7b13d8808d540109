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
    /// The non-priority entries' data keys in byte order.
    private let sortedKeys: [(key: [UInt8], index: Int)]

    /// - Parameter order: the entries' indexes in the byte order of their data keys, when
    ///   known (the planner's); sorted here otherwise.
    init(
        reader: NamespaceReader,
        entries: [PlannedEntry],
        inKeyOrder order: [Int]? = nil,
        shapes: SubtreeShapes? = nil,
        reads: ReadLog? = nil
    ) {
        self.reader = reader
        self.entries = entries
        self.shapes = shapes
        self.reads = reads
        var sortedKeys: [(key: [UInt8], index: Int)] = []
        sortedKeys.reserveCapacity(entries.count)
        for index in order ?? Array(entries.indices) where !entries[index].isPriority {
            sortedKeys.append((entries[index].dataKey, index))
        }
        if order == nil && sortedKeys.count > 1 { sortedKeys.sort { KeyBytes.precedes($0.key, $1.key) } }
        self.sortedKeys = sortedKeys
    }

    /// The entry at the location whose data key is `prefix` or above it. Update paths are
    /// disjoint, so it is the last entry at or before `prefix` in byte order, when that one's
    /// key is a prefix of `prefix` (any key between the two would lie inside it).
    private func coveringEntry(_ prefix: [UInt8]) -> PlannedEntry? {
        let found = prefix.withUnsafeBytes { bytes in
            Self.keyContaining(bytes, count: sortedKeys.count) { sortedKeys[$0].key }
        }
        return found.map { entries[sortedKeys[$0].index] }
    }

    /// Entries strictly below the location with data key `prefix`, in byte order.
    private func entriesBelow(_ prefix: [UInt8]) -> [PlannedEntry] {
        var low = 0
        var high = sortedKeys.count
        while low < high {
            let mid = (low + high) / 2
            if KeyBytes.precedes(sortedKeys[mid].key, prefix) { low = mid + 1 } else { high = mid }
        }
        var result: [PlannedEntry] = []
        while low < sortedKeys.count && KeyBytes.hasPrefix(sortedKeys[low].key, prefix) {
            if sortedKeys[low].key.count > prefix.count { result.append(entries[sortedKeys[low].index]) }
            low += 1
        }
        return result
    }

    /// The replaced prefix that `key` starts with, if any (`sorted` in byte order, no prefix of
    /// another since update paths are disjoint).
    private static func replacedPrefix(of key: UnsafeRawBufferPointer, in sorted: [[UInt8]]) -> [UInt8]? {
        keyContaining(key, count: sorted.count) { sorted[$0] }.map { sorted[$0] }
    }

    /// The position of the key `bytes` starts with among `count` keys in byte order (`key(i)`),
    /// none a prefix of another (update paths are disjoint): the greatest key not above
    /// `bytes`, when `bytes` starts with it (any key between the two would start with it too).
    private static func keyContaining(
        _ bytes: UnsafeRawBufferPointer,
        count: Int,
        key: (Int) -> [UInt8]
    ) -> Int? {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if KeyBytes.compare(bytes, key(mid)) >= 0 { low = mid + 1 } else { high = mid }
        }
        guard low > 0, KeyBytes.hasPrefix(bytes, key(low - 1)) else { return nil }
        return low - 1
    }

    func state(of path: DataPath) -> IndexValueEncoding.Indexed {
        let prefix = reader.keys.dataKey(path)
        if let entry = coveringEntry(prefix) {
            return IndexValueEncoding.Indexed(entry.node?.descendant(entry.path.relative(path)!))
        }
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
