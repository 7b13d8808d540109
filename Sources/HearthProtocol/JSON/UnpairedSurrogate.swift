import HearthCore

/// Finds the string of a request part that holds an unpaired UTF-16 surrogate escape
/// (`"\ud800"`), to say which one in the `failure` answer. Such text is well-formed JSON
/// (`JSON.stringify` writes a lone surrogate that way), so it is bad data in one request, not a
/// broken message. Only run once parsing has failed with `CoreError.unpairedSurrogate`: never
/// on the fast path.
struct UnpairedSurrogate: Equatable {
    /// The escape as the client wrote it, e.g. `\ud800`.
    var escape: String
    /// The string holding it, as the client wrote it (escapes kept), at most 100 characters.
    var text: String
    /// Whether the string is an object key (followed by ':').
    var isKey: Bool

    /// The first string of the raw JSON `bytes` holding an unpaired surrogate escape.
    static func find(in bytes: ArraySlice<UInt8>) -> UnpairedSurrogate? {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard bytes[i] == 0x22 else {
                i += 1
                continue
            }
            let start = i + 1
            var escape: Range<Int>?
            i = start
            while i < bytes.endIndex, bytes[i] != 0x22 {
                guard bytes[i] == 0x5C else {
                    i += 1
                    continue
                }
                if let value = unit(in: bytes, at: i) {
                    if (0xD800...0xDBFF).contains(value), let low = unit(in: bytes, at: i + 6),
                        (0xDC00...0xDFFF).contains(low)
                    {
                        i += 12
                        continue
                    }
                    if (0xD800...0xDFFF).contains(value), escape == nil { escape = i..<(i + 6) }
                    i += 6
                } else {
                    i += 2
                }
            }
            let end = min(i, bytes.endIndex)
            i = end + 1
            guard let escape else { continue }
            var next = i
            while next < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[next]) { next += 1 }
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            return UnpairedSurrogate(
                escape: String(decoding: bytes[escape], as: UTF8.self),
                text: text.count > 100 ? text.prefix(100) + "..." : text,
                isKey: next < bytes.endIndex && bytes[next] == UInt8(ascii: ":")
            )
        }
        return nil
    }

    /// The UTF-16 unit of the `\uXXXX` escape at `i`, or nil for another escape.
    private static func unit(in bytes: ArraySlice<UInt8>, at i: Int) -> UInt16? {
        guard i + 6 <= bytes.endIndex, bytes[i] == 0x5C, bytes[i + 1] == UInt8(ascii: "u") else { return nil }
        var value: UInt16 = 0
        for byte in bytes[(i + 2)..<(i + 6)] {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// Where the string was found.
    enum Part {
        /// The path `p` of a request.
        case path
        /// The data `d` of a put written at this path.
        case data(DataPath)
        /// The data `d` of an update at this path (keys are child paths).
        case update(DataPath)
    }

    /// One sentence for the `failure` answer.
    func message(in part: Part) -> String {
        let what = isKey ? "the key" : "the string"
        let problem: String
        switch part {
        case .path: problem = "Invalid path '\(text)': it holds '\(escape)'"
        case .data(let path): problem = "Invalid data at '\(path)': \(what) '\(text)' holds '\(escape)'"
        case .update(let path): problem = "Invalid update at '\(path)': \(what) '\(text)' holds '\(escape)'"
        }
        return problem + ", an unpaired UTF-16 surrogate; "
            + "paths, keys and strings must be valid Unicode (a surrogate only as half of a pair)."
    }
}
