import CLevelDB

extension WriteBatch {
    /// A copy of the batch with only the last put or delete of each key, in the order those
    /// were made, or nil when there is nothing to drop (or, rarely, two keys' hashes collide).
    /// Applied atomically, it leaves LevelDB in the same state with fewer memtable entries.
    func keepingLastWriteOfEachKey() -> WriteBatch? {
        let operations = BatchOperations()
        leveldb_writebatch_iterate(
            handle,
            Unmanaged.passUnretained(operations).toOpaque(),
            { state, key, keyLength, value, valueLength in
                let operations = Unmanaged<BatchOperations>.fromOpaque(state!).takeUnretainedValue()
                operations.keys.append(UnsafeRawBufferPointer(start: key.map(UnsafeRawPointer.init), count: keyLength))
                operations.values.append(
                    UnsafeRawBufferPointer(start: value.map(UnsafeRawPointer.init), count: valueLength)
                )
            },
            { state, key, keyLength in
                let operations = Unmanaged<BatchOperations>.fromOpaque(state!).takeUnretainedValue()
                operations.keys.append(UnsafeRawBufferPointer(start: key.map(UnsafeRawPointer.init), count: keyLength))
                operations.values.append(nil)
            }
        )
        // The pointers are into this batch's own buffer, which nothing changes until the copy
        // is made.
        let keys = operations.keys
        let hashes = keys.map(Self.hash)
        var last: [UInt64: Int] = [:]
        last.reserveCapacity(keys.count)
        var overridden = 0
        for (index, key) in keys.enumerated() {
            let hash = hashes[index]
            if let earlier = last.updateValue(index, forKey: hash) {
                guard keys[earlier].elementsEqual(key) else { return nil }
                overridden += 1
            }
        }
        guard overridden > 0 else { return nil }
        let copy = WriteBatch()
        for (index, key) in keys.enumerated() where last[hashes[index]] == index {
            if let value = operations.values[index] {
                copy.put(key, value)
            } else {
                copy.delete(key)
            }
        }
        copy.inheritRanges(of: self)
        return copy
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

/// The operations of a batch as `leveldb_writebatch_iterate` reports them.
private final class BatchOperations {
    var keys: [UnsafeRawBufferPointer] = []
    /// A put's value, nil for a delete.
    var values: [UnsafeRawBufferPointer?] = []
}
