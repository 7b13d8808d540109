import HearthCore

extension WriteLocations {
    /// The locations of an update like `kept`'s (the same base, as many entries) whose entries
    /// at `replaced` (increasing indexes) are now at `paths`: the other keys, their order and
    /// hashes are `kept`'s, and each new key is merged into that order, checked against its
    /// neighbours. Nil when a new path is a priority or the root, or contains, or lies inside,
    /// another location (`WriteLocations(of:keys:)` then refuses or orders the update).
    /// `kept` must have no priority location.
    init?(replacing replaced: [Int], with paths: [DataPath], in kept: WriteLocations, keys: KeySpace) {
        precondition(replaced.count == paths.count, "one path per replaced entry")
        let fresh = LocatedEntries(base: kept.located.base, relatives: paths, keys: keys)
        guard !paths.contains(where: \.isRoot), !fresh.isPriority.contains(true),
            let freshOrder = try? fresh.checkDisjoint()
        else { return nil }
        var dataKeys = kept.located.dataKeys
        var relatives = kept.located.relatives
        var hashes = kept.hashes
        let freshHashes = SubtreeShapes.hashes(of: fresh.dataKeys, sharing: fresh.baseKey)
        var isReplaced = [Bool](repeating: false, count: dataKeys.count)
        for (position, index) in replaced.enumerated() {
            dataKeys[index] = fresh.dataKeys[position]
            relatives[index] = paths[position]
            hashes[index] = freshHashes[position]
            isReplaced[index] = true
        }
        let others = kept.order.filter { !isReplaced[$0] }
        guard let order = Self.merged(freshOrder.map { replaced[$0] }, into: others, keys: dataKeys) else { return nil }
        self.init(
            located: LocatedEntries(
                base: kept.located.base,
                relatives: relatives,
                dataKeys: dataKeys,
                isPriority: kept.located.isPriority,
                baseKey: kept.located.baseKey
            ),
            order: order,
            hashes: hashes
        )
    }

    /// `others` (indexes into `keys`, in the byte order of their keys) with `fresh` (likewise,
    /// disjoint among themselves) merged in, each found by binary search; nil when a fresh key
    /// contains, or lies inside, the key next to it (the encoding is prefix-free by segment, so
    /// containment is a byte prefix, and a key's containers and contents sort next to it).
    static func merged(_ fresh: [Int], into others: [Int], keys: [[UInt8]]) -> [Int]? {
        var order: [Int] = []
        order.reserveCapacity(fresh.count + others.count)
        var next = 0
        for index in fresh {
            let key = keys[index]
            let low = lowerBound(of: key, in: others, keys: keys, from: next)
            // Its neighbours: the key before may contain it, it may contain the key after.
            if low > 0, KeyBytes.nested(keys[others[low - 1]], from: 0, key) { return nil }
            if low < others.count, KeyBytes.nested(keys[others[low]], from: 0, key) { return nil }
            order.append(contentsOf: others[next..<low])
            order.append(index)
            next = low
        }
        order.append(contentsOf: others[next...])
        return order
    }
}
