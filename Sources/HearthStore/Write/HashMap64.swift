/// A map from 64-bit hashes (FNV values the caller made already) to values: open addressing
/// with linear probing, slots chosen by a multiplicative mix of the key, no hashing of its own.
/// For the writer's per-key memories (`SubtreeShapes`, `RememberedReads`, `KeptLists`), where a
/// `Dictionary` spent most of each lookup hashing a key that is a hash already.
struct HashMap64<Value> {
    /// 0 marks an empty slot; the key 0 is kept apart (`zeroValue`).
    private var keys: [UInt64]
    private var values: [Value?]
    private var zeroValue: Value?
    /// `64 - log2(keys.count)`: a slot is the top bits of the mixed key.
    private var shift: UInt64
    private(set) var count = 0

    init(capacity: Int = 64) {
        var size = 16
        var bits: UInt64 = 4
        while size < capacity * 2 {
            size <<= 1
            bits += 1
        }
        keys = [UInt64](repeating: 0, count: size)
        values = [Value?](repeating: nil, count: size)
        shift = 64 - bits
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding `key`, or nil.
    @inline(__always)
    private func slot(of key: UInt64) -> Int? {
        let mask = keys.count - 1
        var index = home(key)
        while true {
            let found = keys[index]
            if found == key { return index }
            if found == 0 { return nil }
            index = (index + 1) & mask
        }
    }

    subscript(key: UInt64) -> Value? {
        get {
            if key == 0 { return zeroValue }
            guard count > 0, let index = slot(of: key) else { return nil }
            return values[index]
        }
        set {
            if let newValue { insert(key, newValue) } else { remove(key) }
        }
    }

    /// Changes the value at `key` in place, when there is one (no copy of it is made).
    mutating func modify(_ key: UInt64, _ body: (inout Value) -> Void) {
        if key == 0 {
            if zeroValue != nil { body(&zeroValue!) }
            return
        }
        guard count > 0, let index = slot(of: key) else { return }
        body(&values[index]!)
    }

    private mutating func insert(_ key: UInt64, _ value: Value) {
        if key == 0 {
            if zeroValue == nil { count += 1 }
            zeroValue = value
            return
        }
        if (count + 1) * 2 > keys.count { grow() }
        let mask = keys.count - 1
        var index = home(key)
        while true {
            let found = keys[index]
            if found == key {
                values[index] = value
                return
            }
            if found == 0 {
                keys[index] = key
                values[index] = value
                count += 1
                return
            }
            index = (index + 1) & mask
        }
    }

    /// Removes `key`, moving back the keys after it that probed past its slot, so that every
    /// key stays reachable from its home slot without tombstones.
    private mutating func remove(_ key: UInt64) {
        if key == 0 {
            if zeroValue != nil { count -= 1 }
            zeroValue = nil
            return
        }
        guard count > 0, var hole = slot(of: key) else { return }
        let mask = keys.count - 1
        var next = hole
        while true {
            next = (next + 1) & mask
            let moving = keys[next]
            if moving == 0 { break }
            // `moving` stays unless its home lies cyclically outside (hole, next].
            let home = home(moving)
            let staysPut = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if staysPut { continue }
            keys[hole] = moving
            values[hole] = values[next]
            hole = next
        }
        keys[hole] = 0
        values[hole] = nil
        count -= 1
    }

    /// Removes every key, keeping the capacity.
    mutating func removeAll() {
        guard count > 0 else { return }
        keys.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        values.withUnsafeMutableBufferPointer { $0.update(repeating: nil) }
        zeroValue = nil
        count = 0
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        keys = [UInt64](repeating: 0, count: oldKeys.count * 2)
        values = [Value?](repeating: nil, count: oldKeys.count * 2)
        shift -= 1
        count = zeroValue == nil ? 0 : 1
        for (index, key) in oldKeys.enumerated() where key != 0 {
            insert(key, oldValues[index]!)
        }
    }
}
