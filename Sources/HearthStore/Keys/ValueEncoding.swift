import HearthCore

/// Encoding of stored leaf values and priorities (`t`, `f`, `d` + 8 bytes LE, `s` + UTF-8).
enum ValueEncoding {
    static func encode(_ value: LeafValue) -> [UInt8] {
        var out: [UInt8] = []
        switch value {
        case .bool(let b):
            out.append(b ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        case .number:
            // Made at its size in one step, from the encoding `withEncoded` writes.
            return withEncoded(value) { Array($0) }
        case .string(let s):
            out.reserveCapacity(s.utf8.count + 1)
            out.append(UInt8(ascii: "s"))
            out.append(contentsOf: s.utf8)
        }
        return out
    }

    /// Calls `body` with the encoding of `value`: a number's or a boolean's on the stack.
    static func withEncoded<Result>(_ value: LeafValue, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch value {
        case .bool(let b):
            var byte = b ? UInt8(ascii: "t") : UInt8(ascii: "f")
            return withUnsafeBytes(of: &byte) { body($0) }
        case .number(let d):
            // The tag, then the bits little-endian.
            var encoded: (UInt8, UInt64) = (UInt8(ascii: "d"), 0)
            return withUnsafeMutableBytes(of: &encoded) { bytes in
                bytes[0] = UInt8(ascii: "d")
                var bits = d.bitPattern
                for i in 1...8 {
                    bytes[i] = UInt8(truncatingIfNeeded: bits)
                    bits >>= 8
                }
                return body(UnsafeRawBufferPointer(rebasing: bytes[0..<9]))
            }
        case .string:
            return encode(value).withUnsafeBytes(body)
        }
    }

    static func encode(_ priority: Priority) -> [UInt8] {
        switch priority {
        case .number(let d): return encode(LeafValue.number(d))
        case .string(let s): return encode(LeafValue.string(s))
        }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> LeafValue? {
        guard let tag = bytes.first else { return nil }
        switch tag {
        case UInt8(ascii: "t"): return .bool(true)
        case UInt8(ascii: "f"): return .bool(false)
        case UInt8(ascii: "d"):
            guard bytes.count == 9 else { return nil }
            var bits: UInt64 = 0
            for i in (1...8).reversed() { bits = bits << 8 | UInt64(bytes[i]) }
            return .number(Double(bitPattern: bits))
        case UInt8(ascii: "s"):
            return .string(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[1...]), as: UTF8.self))
        default:
            return nil
        }
    }

    static func decodePriority(_ bytes: UnsafeRawBufferPointer) -> Priority? {
        switch decode(bytes) {
        case .number(let d)?: return .number(d)
        case .string(let s)?: return .string(s)
        default: return nil
        }
    }
}

/// Order-preserving encoding of the value a child is indexed by (see docs/design.md):
/// null < false < true < numbers < strings < objects.
enum IndexValueEncoding {
    static let nullTag: UInt8 = 0x01
    static let falseTag: UInt8 = 0x02
    static let trueTag: UInt8 = 0x03
    static let numberTag: UInt8 = 0x04
    static let stringTag: UInt8 = 0x05
    static let objectTag: UInt8 = 0x06

    /// What a child's indexed location holds.
    enum Indexed: Equatable {
        case missing
        case leaf(LeafValue)
        case object
    }

    static func append(_ value: Indexed, to out: inout [UInt8]) {
        switch value {
        case .missing: out.append(nullTag)
        case .object: out.append(objectTag)
        case .leaf(let leaf): append(leaf, to: &out)
        }
    }

    static func append(_ leaf: LeafValue?, to out: inout [UInt8]) {
        guard let leaf else {
            out.append(nullTag)
            return
        }
        switch leaf {
        case .bool(let b):
            out.append(b ? trueTag : falseTag)
        case .number(let d):
            out.append(numberTag)
            let bits = (d == 0 ? 0.0 : d).bitPattern
            let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: ordered >> UInt64(shift)))
            }
        case .string(let s):
            out.append(stringTag)
            var encoded: [UInt8] = []
            CESU8.append(s, to: &encoded)
            for byte in encoded {
                out.append(byte)
                if byte == 0 { out.append(0xFF) }
            }
            out.append(0)
            out.append(1)
        }
    }

    static func encode(_ value: Indexed) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }
}
