import HearthCore

/// The locations of a write's entries (a set is one entry relative to the root): absolute
/// paths, and data keys encoded once for the common base and then per relative path.
struct LocatedEntries: Sendable {
    let base: DataPath
    let relatives: [DataPath]
    /// The data key of each entry's node; for a priority entry (a path ending in `.priority`),
    /// of the node that owns the priority.
    let dataKeys: [[UInt8]]
    let isPriority: [Bool]
    /// The data key of `base`, which every entry's key but a priority of `base` starts with.
    let baseKey: [UInt8]

    init(base: DataPath, relatives: [DataPath], dataKeys: [[UInt8]], isPriority: [Bool], baseKey: [UInt8]) {
        self.base = base
        self.relatives = relatives
        self.dataKeys = dataKeys
        self.isPriority = isPriority
        self.baseKey = baseKey
    }

    init(base: DataPath, relatives: [DataPath], keys: KeySpace) {
        self.base = base
        self.relatives = relatives
        let baseKey = keys.dataKey(base)
        self.baseKey = baseKey
        var dataKeys: [[UInt8]] = []
        var isPriority: [Bool] = []
        dataKeys.reserveCapacity(relatives.count)
        isPriority.reserveCapacity(relatives.count)
        for relative in relatives {
            guard !relative.isRoot else {
                let priority = base.isPriorityPath
                isPriority.append(priority)
                dataKeys.append(priority ? keys.dataKey(base.parent!) : baseKey)
                continue
            }
            let priority = relative.isPriorityPath
            let segments = relative.keys.dropLast(priority ? 1 : 0)
            // One allocation per key, of its final size (a copy of the base key would grow as
            // segments are appended, allocating again).
            var key: [UInt8] = []
            key.reserveCapacity(baseKey.count + segments.reduce(0) { $0 + KeyEncoding.maxLength(of: $1) })
            key.append(contentsOf: baseKey)
            for childKey in segments { KeyEncoding.append(childKey, to: &key) }
            isPriority.append(priority)
            dataKeys.append(key)
        }
        self.dataKeys = dataKeys
        self.isPriority = isPriority
    }

    var count: Int { relatives.count }

    /// The absolute path of entry `index`.
    func path(_ index: Int) -> DataPath { base.appending(relatives[index]) }

    /// Update paths must not contain one another (Firebase refuses such updates). One location
    /// contains another exactly when its key is a byte prefix of the other's (the encoding is
    /// prefix-free; a priority is its owner's key and the priority marker, below the owner and
    /// beside its children), so a sort of the keys finds any such pair next to each other.
    /// - Returns: the entries' indexes in the byte order of their keys (the order the planner
    ///   puts them in: LevelDB inserts keys in order faster, each one's search in its memtable
    ///   starting near the last one's).
    @discardableResult
    func checkDisjoint() throws -> [Int] {
        guard count > 1 else { return Array(0..<count) }
        let checked = (0..<count).map { isPriority[$0] ? dataKeys[$0] + [KeyEncoding.priorityMarker] : dataKeys[$0] }
        let order = (0..<count).sorted { KeyBytes.precedes(checked[$0], checked[$1]) }
        for (a, b) in zip(order, order.dropFirst()) where KeyBytes.hasPrefix(checked[b], checked[a]) {
            // Named as the path-by-path check names them.
            try Self.checkDisjoint((0..<count).map(path))
            throw Self.overlap(path(a), path(b))
        }
        return order
    }

    /// The same check over paths (sorted, each next to the next).
    static func checkDisjoint(_ paths: [DataPath]) throws {
        let sorted = paths.sorted()
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            let ownerA = a.isPriorityPath ? a.parent! : a
            if a.contains(b) || (a.isPriorityPath && b.contains(ownerA)) || (b.isPriorityPath && a == b.parent!) {
                throw overlap(a, b)
            }
        }
    }

    private static func overlap(_ a: DataPath, _ b: DataPath) -> StoreError {
        StoreError(
            .invalidWrite,
            "Invalid update: the paths '\(a)' and '\(b)' overlap; an update's paths must not contain one another."
        )
    }
}
