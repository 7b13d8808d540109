extension WriteBatch {
    /// A copy of the batch with only the last put or delete of each key, in the order those
    /// were made, or nil when there is nothing to drop (or, rarely, two keys' hashes collide).
    /// Applied atomically, it leaves LevelDB in the same state with fewer memtable entries.
    func keepingLastWriteOfEachKey() -> WriteBatch? {
        let hashes = keyHashes()
        var last = LastIndexes(capacity: hashes.count)
        var overridden = 0
        for (index, hash) in hashes.enumerated() {
            if let earlier = last.update(hash, to: index) {
                guard sameKey(earlier, index) else { return nil }
                overridden += 1
            }
        }
        guard overridden > 0 else { return nil }
        var kept: [Int] = []
        kept.reserveCapacity(hashes.count - overridden)
        for (index, hash) in hashes.enumerated() where last.index(of: hash) == index {
            kept.append(index)
        }
        let copy = keeping(kept)
        copy.inheritRanges(of: self)
        return copy
    }
}

/// The last index seen for each 64-bit hash (FNV values, already well mixed): open addressing
/// with linear probing, no hashing of its own (a `Dictionary` runs SipHash over each).
private struct LastIndexes {
    private var hashes: [UInt64]
    private var indexes: [Int]
    private let mask: Int

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        hashes = [UInt64](repeating: 0, count: size)
        indexes = [Int](repeating: -1, count: size)
        mask = size - 1
    }

    /// Records `index` for `hash`; the one recorded before, if any.
    mutating func update(_ hash: UInt64, to index: Int) -> Int? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while indexes[slot] >= 0 {
            if hashes[slot] == hash {
                defer { indexes[slot] = index }
                return indexes[slot]
            }
            slot = (slot + 1) & mask
        }
        hashes[slot] = hash
        indexes[slot] = index
        return nil
    }

    func index(of hash: UInt64) -> Int? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while indexes[slot] >= 0 {
            if hashes[slot] == hash { return indexes[slot] }
            slot = (slot + 1) & mask
        }
        return nil
    }
}
