#if canImport(Glibc)
import Glibc
#endif

/// Byte-string helpers for key ranges.
enum KeyBytes {
    /// The least byte string greater than every string that starts with `prefix`, or nil
    /// when there is none (all 0xFF).
    static func successor(of prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }

    /// Lexicographic comparison of raw bytes.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Int {
        let n = min(a.count, b.count)
        var i = 0
        while i < n {
            let x = a[i]
            let y = b[i]
            if x != y { return x < y ? -1 : 1 }
            i += 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// True when `a` sorts before `b` (bytewise, as LevelDB orders keys).
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        precedes(a, from: 0, b)
    }

    /// True when the bytes of `a` from `start` on sort before `b` (bytewise).
    static func precedes(_ a: [UInt8], from start: Int, _ b: [UInt8]) -> Bool {
        let rest = a.count - start
        let n = min(rest, b.count)
        let c = a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in n == 0 ? 0 : memcmp(pa.baseAddress! + start, pb.baseAddress!, n) }
        }
        return c != 0 ? c < 0 : rest < b.count
    }

    /// True when the bytes of `a` from `start` on and `b` agree on their common length (one
    /// starts with the other: for key encodings, one location contains the other).
    static func nested(_ a: [UInt8], from start: Int, _ b: [UInt8]) -> Bool {
        let common = min(a.count - start, b.count)
        guard common > 0 else { return common == 0 }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in memcmp(pa.baseAddress! + start, pb.baseAddress!, common) == 0 }
        }
    }

    /// True when `a` and `b` hold the same bytes (one `memcmp`, not an element-wise loop).
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && hasPrefix(a, b)
    }

    /// True when `bytes` starts with the first `length` bytes of `other` (both at least that long).
    static func hasPrefix(_ bytes: [UInt8], _ other: [UInt8], length: Int) -> Bool {
        guard bytes.count >= length, other.count >= length else { return false }
        guard length > 0 else { return true }
        return bytes.withUnsafeBytes { b in
            other.withUnsafeBytes { o in memcmp(b.baseAddress!, o.baseAddress!, length) == 0 }
        }
    }

    /// True when `bytes` starts with `prefix` (compared with `memcmp`).
    static func hasPrefix(_ bytes: [UInt8], _ prefix: [UInt8]) -> Bool {
        guard bytes.count >= prefix.count else { return false }
        guard !prefix.isEmpty else { return true }
        return bytes.withUnsafeBytes { b in
            prefix.withUnsafeBytes { p in memcmp(b.baseAddress!, p.baseAddress!, prefix.count) == 0 }
        }
    }

    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ prefix: [UInt8]) -> Bool {
        guard bytes.count >= prefix.count else { return false }
        for i in 0..<prefix.count where bytes[i] != prefix[i] { return false }
        return true
    }
}
