/// One key of a child in the tree, ordered as Firebase orders keys: keys that are 32-bit
/// integers first (numerically, shorter spelling first on a tie), then every other key by
/// UTF-16 code units, as JavaScript compares strings.
public struct ChildKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The key as written.
    public let string: String
    /// The key's value when Firebase treats it as an integer key (`-?(0*)\d{1,10}` within Int32).
    public let intValue: Int32?

    /// Creates a key without validating it; use `DataPath` or `KeyValidator` for input.
    public init(_ string: String) {
        self.string = string
        self.intValue = ChildKey.parseInt(string)
    }

    public var description: String { string }

    /// Firebase's `tryParseInt`: `^-?(0*)\d{1,10}$` and inside the 32-bit range.
    static func parseInt(_ string: String) -> Int32? {
        let utf8 = string.utf8
        let count = utf8.count
        if count == 0 { return nil }
        var index = utf8.startIndex
        var negative = false
        if utf8[index] == UInt8(ascii: "-") {
            negative = true
            index = utf8.index(after: index)
            if index == utf8.endIndex { return nil }
        }
        // Leading zeros are allowed by the regex `(0*)`, then 1...10 digits.
        var digits = 0
        var value: Int64 = 0
        var sawDigit = false
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
            if sawDigit || byte != 0x30 { sawDigit = true }
            digits += 1
            if value > 4_294_967_296 { return nil }
            index = utf8.index(after: index)
        }
        if digits == 0 { return nil }
        if negative { value = -value }
        guard value >= Int64(Int32.min) && value <= Int64(Int32.max) else { return nil }
        return Int32(value)
    }

    public static func < (lhs: ChildKey, rhs: ChildKey) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Keys are equal when their UTF-8 bytes are (no Unicode canonical equivalence: Firebase
    /// compares code units, so "é" and "e\u{301}" are different keys).
    ///
    /// Inlinable, and reading the bytes in place: a list of keys compared with a kept one (a
    /// chat's members, on every message) copies and retains no string.
    @inlinable public static func == (lhs: ChildKey, rhs: ChildKey) -> Bool {
        // The same representation (one small string's bits, or one shared buffer) is the same
        // bytes: a path compared with a copy of itself never reads them.
        if sameRepresentation(lhs.string, rhs.string) { return true }
        // The integer value follows from the bytes: a cheap first check.
        guard lhs.intValue == rhs.intValue else { return false }
        let inPlace = lhs.string.utf8.withContiguousStorageIfAvailable { a in
            rhs.string.utf8.withContiguousStorageIfAvailable { b in a.count == b.count && a.elementsEqual(b) }
        }
        if let inPlace, let equal = inPlace { return equal }
        return lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    @inlinable @inline(__always)
    static func sameRepresentation(_ a: String, _ b: String) -> Bool {
        withUnsafeBytes(of: a) { pa in
            withUnsafeBytes(of: b) { pb in
                guard pa.count == 16, pb.count == 16 else { return false }
                return pa.loadUnaligned(as: UInt64.self) == pb.loadUnaligned(as: UInt64.self)
                    && pa.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                        == pb.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            }
        }
    }

    /// The hash of the key's UTF-8 bytes, combined at once (keys are dictionary and set keys
    /// on the writer's hot paths).
    public func hash(into hasher: inout Hasher) {
        var bytes = string
        bytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Firebase's `nameCompare`: negative, zero or positive.
    public static func compare(_ lhs: ChildKey, _ rhs: ChildKey) -> Int {
        // Equal keys compare 0 below (same integer and length, or same bytes).
        switch (lhs.intValue, rhs.intValue) {
        case let (a?, b?):
            if a != b { return a < b ? -1 : 1 }
            let la = lhs.string.utf8.count
            let lb = rhs.string.utf8.count
            if la != lb { return la < lb ? -1 : 1 }
            return UTF16Order.compare(lhs.string, rhs.string)
        case (.some, nil):
            return -1
        case (nil, .some):
            return 1
        case (nil, nil):
            return UTF16Order.compare(lhs.string, rhs.string)
        }
    }
}

/// String comparison by UTF-16 code units, as JavaScript's `<` on strings.
public enum UTF16Order {
    /// Negative, zero or positive, comparing UTF-16 code units.
    public static func compare(_ a: String, _ b: String) -> Int {
        // UTF-8 byte order equals code point order; it differs from UTF-16 code unit order only
        // when one side has a supplementary character (4-byte UTF-8, surrogates in UTF-16) and
        // the other a character in U+E000...U+FFFF at the first difference.
        let fast = a.utf8.withContiguousStorageIfAvailable { pa in
            b.utf8.withContiguousStorageIfAvailable { pb in compare(pa, pb) }
        }
        if let fast, let result = fast { return result }
        var ia = a.utf8.makeIterator()
        var ib = b.utf8.makeIterator()
        while true {
            let ca = ia.next()
            let cb = ib.next()
            switch (ca, cb) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?):
                if x == y { continue }
                // First differing byte. Rank lead bytes: 0xF0...0xF4 (supplementary) sort, in
                // UTF-16, below 0xEE...0xEF (U+E000...U+FFFF) and above 0xED 0xA0+ (never
                // valid UTF-8). Map to a UTF-16-ordered rank.
                return rank(x) < rank(y) ? -1 : 1
            }
        }
    }

    /// Compares UTF-8 byte buffers as their UTF-16 code units would compare.
    @inline(__always)
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(a.count, b.count)
        var i = 0
        while i < n {
            let x = a[i]
            let y = b[i]
            if x != y { return rank(x) < rank(y) ? -1 : 1 }
            i += 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// Orders bytes so that a byte sequence compares as its UTF-16 code units would.
    /// Only lead bytes differ in meaning; continuation bytes compare equally either way
    /// because at the first difference both strings share the same lead byte.
    @inline(__always)
    static func rank(_ byte: UInt8) -> Int {
        switch byte {
        case 0xEE...0xEF: return Int(byte) + 0x10  // U+E000...U+FFFF: after the surrogates
        case 0xF0...0xF4: return Int(byte) - 0xF0 + 0xEE  // supplementary: between 0xED and 0xEE
        default: return Int(byte)
        }
    }
}
