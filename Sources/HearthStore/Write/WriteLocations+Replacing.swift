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
        var order: [Int] = []
        order.reserveCapacity(kept.order.count)
        var next = 0
        for position in freshOrder {
            let key = fresh.dataKeys[position]
            var (low, high) = (next, others.count)
            while low < high {
                let middle = (low + high) / 2
                if KeyBytes.precedes(dataKeys[others[middle]], key) { low = middle + 1 } else { high = middle }
            }
            // Its neighbours: the key before may contain it, it may contain the key after.
            if low > 0, KeyBytes.hasPrefix(key, dataKeys[others[low - 1]]) { return nil }
            if low < others.count, KeyBytes.hasPrefix(dataKeys[others[low]], key) { return nil }
            order.append(contentsOf: others[next..<low])
            order.append(replaced[position])
            next = low
        }
        order.append(contentsOf: others[next...])
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
}
