import HearthCore

/// JSON output helpers that work on raw UTF-8 bytes (no intermediate `String`).
enum JSONBytes {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `"…"` with JSON escaping of valid UTF-8 `bytes`.
    static func appendString(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        var i = 0
        let count = bytes.count
        while i < count {
            let b = bytes[i]
            if b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                if runStart < i { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<i])) }
                appendEscape(b, to: &out)
                runStart = i + 1
            }
            i += 1
        }
        if runStart < count { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<count])) }
        out.append(UInt8(ascii: "\""))
    }

    @inline(never)
    private static func appendEscape(_ b: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        switch b {
        case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(UInt8(ascii: "f"))
        default:
            out.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
        }
    }

    /// Appends a stored leaf value (the `ValueEncoding` bytes) as JSON.
    static func appendStoredLeaf(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        guard let tag = bytes.first else {
            out.append(contentsOf: "null".utf8)
            return
        }
        switch tag {
        case UInt8(ascii: "t"): out.append(contentsOf: "true".utf8)
        case UInt8(ascii: "f"): out.append(contentsOf: "false".utf8)
        case UInt8(ascii: "s"): appendString(UnsafeRawBufferPointer(rebasing: bytes[1...]), to: &out)
        default:
            if case .number(let d)? = ValueEncoding.decode(bytes) {
                JSONRenderer.appendNumber(d, into: &out)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        }
    }
}
