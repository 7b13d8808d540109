import HearthCore

/// JSON output helpers that work on raw UTF-8 bytes (no intermediate `String`).
enum JSONBytes {
    /// Appends `"…"` with JSON escaping of valid UTF-8 `bytes` (HearthCore's escaping).
    @inline(__always)
    static func appendString(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        JSONRenderer.appendString(utf8: bytes.assumingMemoryBound(to: UInt8.self), into: &out)
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
