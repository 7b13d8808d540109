extension JSONRenderer {
    /// Appends `string` as a JSON string: `"` and `\` escaped, control characters as `\b`,
    /// `\f`, `\n`, `\r`, `\t` or `\u00XX`, everything else as raw UTF-8 (as `JSON.stringify`).
    @inline(__always)
    public static func appendString(_ string: String, into out: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendString(utf8: $0, into: &out) }
    }

    /// Appends UTF-8 bytes (assumed valid) as a JSON string.
    public static func appendString(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(0x22)
        var runStart = 0
        var i = 0
        let count = bytes.count
        while i < count {
            let b = bytes[i]
            if b >= 0x20 && b != 0x22 && b != 0x5C {
                i += 1
                continue
            }
            if i > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            out.append(0x5C)
            switch b {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
            }
            i += 1
            runStart = i
        }
        if count > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count])) }
        out.append(0x22)
    }
}
