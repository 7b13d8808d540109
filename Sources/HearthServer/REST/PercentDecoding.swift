/// Strict percent-decoding: every `%` must start a `%XX` escape and the result must be UTF-8.
enum PercentDecoding {
    /// A path segment: only `%XX` escapes are decoded (`+` stays `+`, as in Firebase paths).
    static func decode(_ text: Substring) -> String? {
        decode(text, plusIsSpace: false)
    }

    /// A query-string name or value, decoded as HTML forms encode it (what browsers' forms,
    /// Python's `requests`, Java's `URLEncoder` and Node's `URLSearchParams` send): `+` is a
    /// space, `%2B` a plus.
    static func decodeFormComponent(_ text: Substring) -> String? {
        decode(text, plusIsSpace: true)
    }

    private static func decode(_ text: Substring, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Splits a request target into its raw path and raw query (without `?` or `#fragment`).
    /// Splits on the bytes `#` and `?` (ASCII, so never inside a multi-byte character).
    static func splitTarget(_ target: String) -> (path: Substring, query: Substring?) {
        var target = Substring(target)
        if let hash = target.utf8.firstIndex(of: UInt8(ascii: "#")) { target = target[..<hash] }
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (target, nil) }
        return (target[..<question], target[target.utf8.index(after: question)...])
    }
}
