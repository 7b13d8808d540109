// Storage and key helpers behind `TreeReader` (see TreeParser.swift): a manually managed
// stack of object and array members (moved, never copied, into the finished `Children`),
// a cache of recently seen keys, and byte-level key construction.

extension ChildKey {
    /// A key from a string already known to be valid, with its integer value computed by the
    /// caller (`TreeKeyBytes.intValue`), so that `parseInt` does not run again.
    @inline(__always)
    init(validated string: String, intValue: Int32?) {
        self.string = string
        self.intValue = intValue
    }
}

/// Byte-level helpers for keys.
enum TreeKeyBytes {
    /// `ChildKey.parseInt` on UTF-8 bytes: `-?` then digits only, within the 32-bit range.
    @inline(__always)
    static func intValue(_ p: UnsafePointer<UInt8>, count: Int) -> Int32? {
        if count == 0 { return nil }
        let first = p[0]
        if first != UInt8(ascii: "-") && (first &- 0x30) > 9 { return nil }
        var i = 0
        var negative = false
        if first == UInt8(ascii: "-") {
            negative = true
            i = 1
            if count == 1 { return nil }
        }
        var value: Int64 = 0
        while i < count {
            let d = p[i] &- 0x30
            if d > 9 { return nil }
            value = value * 10 + Int64(d)
            if value > 4_294_967_296 { return nil }
            i += 1
        }
        if negative { value = -value }
        guard value >= Int64(Int32.min) && value <= Int64(Int32.max) else { return nil }
        return Int32(value)
    }

    /// Sort information of a member key: its first 16 UTF-8 bytes as two big-endian words
    /// (zero padded; keys never contain NUL), and flags.
    struct SortInfo {
        var w0: UInt64
        var w1: UInt64
        var flags: UInt8
    }

    /// The words compare like the keys whenever they differ (non-integer key, no byte in
    /// 0xEE...0xFF among the first 16, where UTF-8 and UTF-16 orders can disagree).
    static let wordsOrdered: UInt8 = 1
    /// The words hold the whole key (16 bytes or fewer): equal words are equal keys.
    static let wordsComplete: UInt8 = 2

    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Mask of the low `n` bytes (0...8) of a little-endian word.
    @inline(__always)
    static func lowMask(_ n: Int) -> UInt64 {
        n >= 8 ? ~0 : (UInt64(1) &<< UInt64(n &* 8)) &- 1
    }

    /// The sort information of the `count` key bytes at `p`; `readable` is how many bytes
    /// from `p` may be read (at least `count`).
    @inline(__always)
    static func sortInfo(_ p: UnsafePointer<UInt8>, count: Int, readable: Int, isInt: Bool) -> SortInfo {
        var lo: UInt64
        var hi: UInt64
        if readable >= 16 {
            lo = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            hi = UnsafeRawPointer(p + 8).loadUnaligned(as: UInt64.self)
            if count < 16 {
                lo &= lowMask(count)
                hi &= count > 8 ? lowMask(count &- 8) : 0
            }
        } else {
            lo = 0
            hi = 0
            var i = 0
            while i < min(count, 16) {
                if i < 8 {
                    lo |= UInt64(p[i]) &<< UInt64(i &* 8)
                } else {
                    hi |= UInt64(p[i]) &<< UInt64((i &- 8) &* 8)
                }
                i += 1
            }
        }
        var flags: UInt8 = count <= 16 ? wordsComplete : 0
        if !isInt {
            var ordered = true
            if (lo | hi) & highBits != 0 {
                var i = 0
                while i < min(count, 16) {
                    if p[i] >= 0xEE {
                        ordered = false
                        break
                    }
                    i += 1
                }
            }
            if ordered { flags |= wordsOrdered }
        }
        return SortInfo(w0: lo.byteSwapped, w1: hi.byteSwapped, flags: flags)
    }

    /// True when the `count` bytes at `p` are well-formed UTF-8 (the rules of
    /// `JSONScanner.validateUTF8`: no overlongs, surrogates or values over U+10FFFF).
    static func isValidUTF8(_ p: UnsafePointer<UInt8>, count: Int) -> Bool {
        var i = 0
        while i < count {
            let b0 = p[i]
            if b0 < 0x80 {
                i &+= 1
                continue
            }
            guard let lead = UTF8Lead(b0) else { return false }
            let length = lead.length
            if i &+ length > count { return false }
            let b1 = p[i &+ 1]
            if b1 < lead.secondLow || b1 > lead.secondHigh { return false }
            var k = 2
            while k < length {
                let c = p[i &+ k]
                if c < 0x80 || c > 0xBF { return false }
                k &+= 1
            }
            i &+= length
        }
        return true
    }
}

/// One remembered key: its raw bytes (at most 16, little-endian words, masked) and the
/// finished `ChildKey` with its sort information.
struct CachedTreeKey {
    var rawLo: UInt64 = 0
    var rawHi: UInt64 = 0
    /// Byte length; 0 for an empty slot (keys are never empty).
    var count: Int = 0
    var key: ChildKey = ChildKey(validated: "", intValue: nil)
    var info = TreeKeyBytes.SortInfo(w0: 0, w1: 0, flags: 0)
}

/// The members of the objects and arrays being read, innermost last, in manually managed
/// memory so that a finished object moves its members into its arrays without retains.
struct TreeMemberStack {
    var keys: UnsafeMutablePointer<ChildKey>
    var nodes: UnsafeMutablePointer<Node>
    var w0: UnsafeMutablePointer<UInt64>
    var w1: UnsafeMutablePointer<UInt64>
    var flags: UnsafeMutablePointer<UInt8>
    var count = 0
    var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
        keys = .allocate(capacity: capacity)
        nodes = .allocate(capacity: capacity)
        w0 = .allocate(capacity: capacity)
        w1 = .allocate(capacity: capacity)
        flags = .allocate(capacity: capacity)
    }

    /// Destroys the members left (after an error) and frees the memory.
    func release() {
        keys.deinitialize(count: count)
        nodes.deinitialize(count: count)
        keys.deallocate()
        nodes.deallocate()
        w0.deallocate()
        w1.deallocate()
        flags.deallocate()
    }

    mutating func grow() {
        let newCapacity = capacity * 2
        let k = UnsafeMutablePointer<ChildKey>.allocate(capacity: newCapacity)
        let n = UnsafeMutablePointer<Node>.allocate(capacity: newCapacity)
        let a = UnsafeMutablePointer<UInt64>.allocate(capacity: newCapacity)
        let b = UnsafeMutablePointer<UInt64>.allocate(capacity: newCapacity)
        let f = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        k.moveInitialize(from: keys, count: count)
        n.moveInitialize(from: nodes, count: count)
        a.update(from: w0, count: count)
        b.update(from: w1, count: count)
        f.update(from: flags, count: count)
        keys.deallocate()
        nodes.deallocate()
        w0.deallocate()
        w1.deallocate()
        flags.deallocate()
        keys = k
        nodes = n
        w0 = a
        w1 = b
        flags = f
        capacity = newCapacity
    }

    @inline(__always)
    mutating func push(_ key: ChildKey, _ node: Node, _ info: TreeKeyBytes.SortInfo) {
        if count == capacity { grow() }
        (keys + count).initialize(to: key)
        (nodes + count).initialize(to: node)
        w0[count] = info.w0
        w1[count] = info.w1
        flags[count] = info.flags
        count += 1
    }

    /// Firebase order of the members at `a` and `b`: negative, zero or positive.
    @inline(__always)
    func compare(_ a: Int, _ b: Int) -> Int {
        let fa = flags[a]
        let fb = flags[b]
        if fa & fb & TreeKeyBytes.wordsOrdered != 0 {
            let a0 = w0[a]
            let b0 = w0[b]
            if a0 != b0 { return a0 < b0 ? -1 : 1 }
            let a1 = w1[a]
            let b1 = w1[b]
            if a1 != b1 { return a1 < b1 ? -1 : 1 }
            if fa & fb & TreeKeyBytes.wordsComplete != 0 { return 0 }
        }
        return ChildKey.compare(keys[a], keys[b])
    }

    /// Moves the members from `base` on, in order, into new arrays.
    @inline(__always)
    mutating func take(from base: Int) -> Children {
        let n = count - base
        var k: [ChildKey] = []
        var v: [Node] = []
        k.reserveCapacity(n)
        v.reserveCapacity(n)
        for i in base..<count {
            k.append((keys + i).move())
            v.append((nodes + i).move())
        }
        count = base
        return Children(sortedKeys: k, nodes: v)
    }

    /// Moves the members at `base + order[i]` into new arrays, in that order, skipping (and
    /// destroying) those whose `keep` entry is false.
    mutating func take(
        from base: Int,
        order: UnsafeMutableBufferPointer<Int>,
        kept: Int,
        keep: UnsafeMutableBufferPointer<Bool>
    ) -> Children {
        var k: [ChildKey] = []
        var v: [Node] = []
        k.reserveCapacity(kept)
        v.reserveCapacity(kept)
        for i in 0..<order.count {
            let index = base + order[i]
            if keep[i] {
                k.append((keys + index).move())
                v.append((nodes + index).move())
            } else {
                (keys + index).deinitialize(count: 1)
                (nodes + index).deinitialize(count: 1)
            }
        }
        count = base
        return Children(sortedKeys: k, nodes: v)
    }
}

/// Keys `"0"`, `"1"`, ... for array elements.
let treeIndexKeys: [ChildKey] = (0..<256).map { ChildKey(String($0)) }
