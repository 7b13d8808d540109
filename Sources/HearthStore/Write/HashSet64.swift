/// A set of 64-bit hashes (FNV values, already well mixed), open addressing with linear probing:
/// no hashing of its own, a few nanoseconds an operation, for the per-key checks of `TouchedKeys`
/// and `RememberedReads`.
struct HashSet64 {
    private var slots: [UInt64]
    private var mask: Int
    private(set) var count = 0
    /// 0 marks an empty slot; the value 0 is kept apart.
    private var hasZero = false

    init(capacity: Int = 64) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
    }

    var isEmpty: Bool { count == 0 }

    func contains(_ value: UInt64) -> Bool {
        if value == 0 { return hasZero }
        var index = Int(truncatingIfNeeded: value) & mask
        while true {
            let slot = slots[index]
            if slot == value { return true }
            if slot == 0 { return false }
            index = (index + 1) & mask
        }
    }

    /// Adds `value`; false when it was there already.
    @discardableResult
    mutating func insert(_ value: UInt64) -> Bool {
        if value == 0 {
            defer { hasZero = true }
            if !hasZero { count += 1 }
            return !hasZero
        }
        if (count + 1) * 2 > slots.count { grow() }
        var index = Int(truncatingIfNeeded: value) & mask
        while true {
            let slot = slots[index]
            if slot == value { return false }
            if slot == 0 {
                slots[index] = value
                count += 1
                return true
            }
            index = (index + 1) & mask
        }
    }

    /// Removes every value, keeping the capacity.
    mutating func removeAll() {
        guard count > 0 else { return }
        slots.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        count = 0
        hasZero = false
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        mask = slots.count - 1
        count = hasZero ? 1 : 0
        for value in old where value != 0 { insert(value) }
    }
}
