import HearthCore

/// The order-preserving, self-delimiting encoding of paths (see docs/design.md).
enum KeyEncoding {
    /// The segment that marks a node's priority; sorts before every child segment.
    static let priorityMarker: UInt8 = 0x00
    static let intTag: UInt8 = 0x01
    static let stringTag: UInt8 = 0x02

    static func append(_ key: ChildKey, to out: inout [UInt8]) {
        if let value = key.intValue {
            out.append(intTag)
            let biased = UInt32(bitPattern: value) ^ 0x8000_0000
            out.append(UInt8(truncatingIfNeeded: biased >> 24))
            out.append(UInt8(truncatingIfNeeded: biased >> 16))
            out.append(UInt8(truncatingIfNeeded: biased >> 8))
            out.append(UInt8(truncatingIfNeeded: biased))
            let utf8 = key.string.utf8
            out.append(UInt8(utf8.count))
            if utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil {
                out.append(contentsOf: utf8)
            }
        } else {
            out.append(stringTag)
            CESU8.append(key.string, to: &out)
            out.append(0)
        }
    }

    /// At most how many bytes `append(key, to:)` adds (a character outside the BMP takes 4
    /// bytes of UTF-8 and 6 of CESU-8).
    @inline(__always)
    static func maxLength(of key: ChildKey) -> Int {
        let utf8 = key.string.utf8.count
        return key.intValue != nil ? 6 + utf8 : 2 + utf8 + utf8 / 2
    }

    static func append(_ path: DataPath, to out: inout [UInt8]) {
        for key in path.keys { append(key, to: &out) }
    }

    static func encode(_ path: DataPath) -> [UInt8] {
        var out: [UInt8] = []
        append(path, to: &out)
        return out
    }

    static func encode(_ key: ChildKey) -> [UInt8] {
        var out: [UInt8] = []
        append(key, to: &out)
        return out
    }

    /// The end offset of the segment starting at `offset` (the priority marker is one byte).
    @inline(__always)
    static func segmentEnd(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> Int? {
        guard offset < bytes.count else { return nil }
        switch bytes[offset] {
        case priorityMarker:
            return offset + 1
        case intTag:
            guard offset + 6 <= bytes.count else { return nil }
            let end = offset + 6 + Int(bytes[offset + 5])
            return end <= bytes.count ? end : nil
        case stringTag:
            var i = offset + 1
            while i < bytes.count {
                if bytes[i] == 0 { return i + 1 }
                i += 1
            }
            return nil
        default:
            return nil
        }
    }

    /// The key spelled by the segment `bytes[start..<end]` (not the priority marker).
    static func decodeKey(_ bytes: UnsafeRawBufferPointer, start: Int, end: Int) -> ChildKey {
        if bytes[start] == intTag {
            let text = UnsafeRawBufferPointer(rebasing: bytes[(start + 6)..<end])
            return ChildKey(String(decoding: text, as: UTF8.self))
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<(end - 1)])
        return ChildKey(CESU8.decode(text))
    }

    /// Runs `body` with the UTF-8 bytes of the key spelled by the segment `bytes[start..<end]`
    /// (for rendering, without building a String): the stored bytes themselves, unless the key
    /// holds a character outside the BMP (stored as CESU-8).
    static func withKeyUTF8<Result>(
        _ bytes: UnsafeRawBufferPointer,
        start: Int,
        end: Int,
        _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        if bytes[start] == intTag { return body(UnsafeRawBufferPointer(rebasing: bytes[(start + 6)..<end])) }
        let stored = UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<(end - 1)])
        guard CESU8.hasSurrogates(stored) else { return body(stored) }
        return Array(CESU8.decode(stored).utf8).withUnsafeBytes(body)
    }

    /// When the segment is an array index as Firebase's `val()` sees it (`0|[1-9]\d*`), its value.
    @inline(__always)
    static func arrayIndex(_ bytes: UnsafeRawBufferPointer, start: Int, end: Int) -> Int? {
        guard bytes[start] == intTag else { return nil }
        let first = start + 6
        guard first < end else { return nil }
        if bytes[first] == UInt8(ascii: "-") { return nil }
        if bytes[first] == UInt8(ascii: "0") && end - first > 1 { return nil }
        var value = 0
        for i in first..<end { value = value * 10 + Int(bytes[i] - 0x30) }
        return value
    }
}

/// CESU-8: each UTF-16 code unit encoded as UTF-8 would encode that scalar, so byte order is
/// UTF-16 code-unit order. Identical to UTF-8 except for characters outside the BMP.
enum CESU8 {
    static func append(_ string: String, to out: inout [UInt8]) {
        // Without characters outside the BMP (no 4-byte UTF-8 sequence) it is the UTF-8 itself:
        // native strings scan and copy their bytes at once.
        let bmpOnly: Bool
        if let copied = string.utf8.withContiguousStorageIfAvailable({ bytes -> Bool in
            guard !bytes.contains(where: { $0 >= 0xF0 }) else { return false }
            out.append(contentsOf: bytes)
            return true
        }) {
            if copied { return }
            bmpOnly = false
        } else {
            bmpOnly = !string.utf8.contains { $0 >= 0xF0 }
        }
        if bmpOnly {
            out.append(contentsOf: string.utf8)
            return
        }
        for unit in string.utf16 {
            appendUnit(unit, to: &out)
        }
    }

    @inline(__always)
    private static func appendUnit(_ unit: UInt16, to out: inout [UInt8]) {
        switch unit {
        case 0..<0x80:
            out.append(UInt8(unit))
        case 0x80..<0x800:
            out.append(0xC0 | UInt8(unit >> 6))
            out.append(0x80 | UInt8(unit & 0x3F))
        default:
            out.append(0xE0 | UInt8(unit >> 12))
            out.append(0x80 | UInt8((unit >> 6) & 0x3F))
            out.append(0x80 | UInt8(unit & 0x3F))
        }
    }

    /// True when the bytes hold an encoded surrogate (0xED 0xA0...0xBF), i.e. differ from UTF-8.
    @inline(__always)
    static func hasSurrogates(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 3 else { return false }
        for i in 0..<(bytes.count - 2) where bytes[i] == 0xED && bytes[i + 1] >= 0xA0 {
            return true
        }
        return false
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> String {
        if !hasSurrogates(bytes) { return String(decoding: bytes, as: UTF8.self) }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 {
                units.append(UInt16(b))
                i += 1
            } else if b < 0xE0 {
                units.append(UInt16(b & 0x1F) << 6 | UInt16(bytes[i + 1] & 0x3F))
                i += 2
            } else {
                units.append(
                    UInt16(b & 0x0F) << 12 | UInt16(bytes[i + 1] & 0x3F) << 6 | UInt16(bytes[i + 2] & 0x3F)
                )
                i += 3
            }
        }
        return String(decoding: units, as: UTF16.self)
    }
}
