/// A map from 64-bit hashes (FNV values the caller made already) to values: open addressing
/// with linear probing, slots chosen by a multiplicative mix of the key, no hashing of its own.
/// For the writer's per-key memories (`SubtreeShapes`, `RememberedReads`, `KeptLists`), where a
/// `Dictionary` spent most of each lookup hashing a key that is a hash already.
///
/// Noncopyable, over storage of its own: a value is read in place (`lend`) rather than copied
/// out of an array of optionals, which retained and released every array the value holds (a
/// remembered counter's data key and bytes, on each of a chat message's ~300 locations).
struct HashMap64<Value>: ~Copyable {
    /// 0 marks an empty slot; the key 0 is kept apart (`zeroValue`).
    private var keys: UnsafeMutablePointer<UInt64>
    /// Initialized exactly where `keys` is not 0.
    private var values: UnsafeMutablePointer<Value>
    private var size: Int
    private var zeroValue: Value?
    /// `64 - log2(size)`: a slot is the top bits of the mixed key.
    private var shift: UInt64
    private(set) var count = 0

    init(capacity: Int = 64) {
        var size = 16
        var bits: UInt64 = 4
        while size < capacity * 2 {
            size <<= 1
            bits += 1
        }
        self.size = size
        keys = Self.emptyKeys(size)
        values = .allocate(capacity: size)
        shift = 64 - bits
    }

    deinit {
        for index in 0..<size where keys[index] != 0 { (values + index).deinitialize(count: 1) }
        keys.deallocate()
        values.deallocate()
    }

    private static func emptyKeys(_ size: Int) -> UnsafeMutablePointer<UInt64> {
        let keys = UnsafeMutablePointer<UInt64>.allocate(capacity: size)
        keys.initialize(repeating: 0, count: size)
        return keys
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding `key`, or nil.
    @inline(__always)
    private func slot(of key: UInt64) -> Int? {
        let mask = size - 1
        var index = home(key)
        while true {
            let found = keys[index]
            if found == key { return index }
            if found == 0 { return nil }
            index = (index + 1) & mask
        }
    }

    /// A copy of the value at `key` (`lend` reads one without copying).
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

    /// The value at `key` lent to `body`, with no copy of it made; nil when there is none.
    @inline(__always)
    func lend<Result>(_ key: UInt64, _ body: (borrowing Value) -> Result) -> Result? {
        if key == 0 {
            guard let zeroValue else { return nil }
            return body(zeroValue)
        }
        guard count > 0, let index = slot(of: key) else { return nil }
        return body(values[index])
    }

    /// True when `key` has a value.
    func contains(_ key: UInt64) -> Bool {
        key == 0 ? zeroValue != nil : count > 0 && slot(of: key) != nil
    }

    /// Changes the value at `key` in place, when there is one (no copy of it is made).
    mutating func modify(_ key: UInt64, _ body: (inout Value) -> Void) {
        if key == 0 {
            if zeroValue != nil { body(&zeroValue!) }
            return
        }
        guard count > 0, let index = slot(of: key) else { return }
        body(&values[index])
    }

    private mutating func insert(_ key: UInt64, _ value: consuming Value) {
        if key == 0 {
            if zeroValue == nil { count += 1 }
            zeroValue = value
            return
        }
        if (count + 1) * 2 > size { grow() }
        let mask = size - 1
        var index = home(key)
        while true {
            let found = keys[index]
            if found == key {
                values[index] = value
                return
            }
            if found == 0 {
                keys[index] = key
                (values + index).initialize(to: value)
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
        (values + hole).deinitialize(count: 1)
        let mask = size - 1
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
            (values + hole).moveInitialize(from: values + next, count: 1)
            hole = next
        }
        keys[hole] = 0
        count -= 1
    }

    /// Removes every key, keeping the capacity.
    mutating func removeAll() {
        guard count > 0 else { return }
        for index in 0..<size where keys[index] != 0 {
            (values + index).deinitialize(count: 1)
            keys[index] = 0
        }
        zeroValue = nil
        count = 0
    }

    /// Twice the slots, every value moved (not copied) to its slot there.
    private mutating func grow() {
        let (oldKeys, oldValues, oldSize) = (keys, values, size)
        size = oldSize * 2
        keys = Self.emptyKeys(size)
        values = .allocate(capacity: size)
        shift -= 1
        let mask = size - 1
        for old in 0..<oldSize where oldKeys[old] != 0 {
            var index = home(oldKeys[old])
            while keys[index] != 0 { index = (index + 1) & mask }
            keys[index] = oldKeys[old]
            (values + index).moveInitialize(from: oldValues + old, count: 1)
        }
        oldKeys.deallocate()
        oldValues.deallocate()
    }
}
