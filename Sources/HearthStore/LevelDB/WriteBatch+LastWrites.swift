extension WriteBatch {
    /// A copy of the batch with only the last put or delete of each key, in the order those
    /// were made, or nil when there is nothing to drop (or, rarely, two keys' hashes collide).
    /// Applied atomically, it leaves LevelDB in the same state with fewer memtable entries.
    func keepingLastWriteOfEachKey() -> WriteBatch? {
        let operations = operations
        var hashes: [UInt64] = []
        hashes.reserveCapacity(operations.count)
        var last: [UInt64: Int] = [:]
        last.reserveCapacity(operations.count)
        var overridden = 0
        for (index, operation) in operations.enumerated() {
            let hash = Self.hash(operation.key)
            hashes.append(hash)
            if let earlier = last.updateValue(index, forKey: hash) {
                guard KeyBytes.equal(operations[earlier].key, operation.key) else { return nil }
                overridden += 1
            }
        }
        guard overridden > 0 else { return nil }
        var kept: [(key: [UInt8], value: [UInt8]?)] = []
        kept.reserveCapacity(operations.count - overridden)
        for (index, operation) in operations.enumerated() where last[hashes[index]] == index {
            kept.append(operation)
        }
        let copy = WriteBatch()
        copy.replaceOperations(kept)
        copy.inheritRanges(of: self)
        return copy
    }

    private static func hash(_ key: [UInt8]) -> UInt64 {
        key.withUnsafeBufferPointer { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return hash
        }
    }
}
