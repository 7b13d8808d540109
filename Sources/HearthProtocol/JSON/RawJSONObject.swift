import HearthCore

/// Finds the members of a JSON object inside a byte buffer without building values: each
/// member's key and the byte range of its raw value, so that small values can be parsed with
/// `JSONParser` and data payloads straight into the tree with `TreeParser`, without a second
/// copy of the data. The structure between members is checked strictly; values are only
/// skipped here and must be parsed by the caller (which checks their syntax).
public struct RawJSONObject {
    /// One member: its decoded key and the range of its raw value in the buffer.
    public struct Member {
        public var key: String
        public var value: Range<Int>
    }

    public let bytes: [UInt8]
    public private(set) var members: [Member] = []

    /// Reads the object that fills `range` of `bytes` (surrounding whitespace allowed).
    /// - Throws: `ProtocolError` (`.malformedMessage`) when the text is not an object.
    init(_ bytes: [UInt8], range: Range<Int>) throws {
        self.bytes = bytes
        members.reserveCapacity(4)
        var i = skipWhitespace(range.lowerBound, end: range.upperBound)
        guard i < range.upperBound, bytes[i] == UInt8(ascii: "{") else {
            throw RawJSONObject.notObject(bytes, range)
        }
        i += 1
        i = skipWhitespace(i, end: range.upperBound)
        if i < range.upperBound, bytes[i] == UInt8(ascii: "}") {
            try expectEnd(i + 1, range)
            return
        }
        while true {
            guard i < range.upperBound, bytes[i] == 0x22 else { throw syntax(i, "expected a '\"'-quoted key") }
            let keyEnd = try skipString(i, end: range.upperBound)
            let key = try decodeKey(i..<keyEnd)
            i = skipWhitespace(keyEnd, end: range.upperBound)
            guard i < range.upperBound, bytes[i] == UInt8(ascii: ":") else {
                throw syntax(i, "expected ':' after an object key")
            }
            let valueStart = skipWhitespace(i + 1, end: range.upperBound)
            let valueEnd = try skipValue(valueStart, end: range.upperBound)
            members.append(Member(key: key, value: valueStart..<valueEnd))
            i = skipWhitespace(valueEnd, end: range.upperBound)
            guard i < range.upperBound else { throw syntax(i, "unexpected end of input") }
            if bytes[i] == UInt8(ascii: ",") {
                i = skipWhitespace(i + 1, end: range.upperBound)
                continue
            }
            if bytes[i] == UInt8(ascii: "}") {
                try expectEnd(i + 1, range)
                return
            }
            throw syntax(i, "expected ',' or '}' after an object member")
        }
    }

    /// Reads a whole buffer as one object.
    public init(_ bytes: [UInt8]) throws {
        try self.init(bytes, range: 0..<bytes.count)
    }

    /// The range of the last member named `key`, as JSON parsers conventionally read duplicates.
    func range(of key: String) -> Range<Int>? {
        members.last(where: { $0.key == key })?.value
    }

    /// The member named `key` parsed as a generic JSON value.
    func value(of key: String) throws -> JSONValue? {
        guard let range = range(of: key) else { return nil }
        if let plain = plainScalar(range) { return plain }
        return try JSONParser.parse(bytes[range])
    }

    /// A plain string (printable ASCII, no escapes) or a short integer, read without the full
    /// parser: request numbers, actions and paths on every message. Nil for anything else,
    /// which `JSONParser` reads (and rejects with its exact message when it is not JSON).
    private func plainScalar(_ range: Range<Int>) -> JSONValue? {
        guard !range.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> JSONValue? in
            if buffer[range.lowerBound] == 0x22 {
                guard let text = plainString(buffer, range) else { return nil }
                return .string(text)
            }
            var i = range.lowerBound
            let negative = buffer[i] == UInt8(ascii: "-")
            if negative { i += 1 }
            let digits = range.upperBound - i
            // At most 15 digits (exact in a Double); no leading zero; not -0 (a Double -0.0).
            guard digits >= 1, digits <= 15, buffer[i] != 0x30 || digits == 1 else { return nil }
            var value: Int64 = 0
            while i < range.upperBound {
                let digit = buffer[i] &- 0x30
                guard digit <= 9 else { return nil }
                value = value &* 10 &+ Int64(digit)
                i += 1
            }
            if negative && value == 0 { return nil }
            return .number(Double(negative ? -value : value))
        }
    }

    /// The text of the quoted string filling `range` when it is printable ASCII without escapes.
    private func plainString(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        guard range.count >= 2, buffer[range.upperBound - 1] == 0x22 else { return nil }
        let inner = (range.lowerBound + 1)..<(range.upperBound - 1)
        for i in inner {
            let b = buffer[i]
            if b < 0x20 || b >= 0x7F || b == 0x5C || b == 0x22 { return nil }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: buffer[inner]), as: UTF8.self)
    }

    /// The raw bytes of a member's value.
    func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
        bytes[range]
    }

    /// Parses every member whose key is not in `known` with the strict parser, so that a
    /// message is rejected when any part of it is not JSON.
    func validateOthers(except known: [String]) throws {
        for member in members where !known.contains(member.key) {
            _ = try JSONParser.parse(bytes[member.value])
        }
    }

    // MARK: Scanning

    private func skipWhitespace(_ start: Int, end: Int) -> Int {
        var i = start
        while i < end {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return i
            }
        }
        return i
    }

    private func expectEnd(_ start: Int, _ range: Range<Int>) throws {
        let i = skipWhitespace(start, end: range.upperBound)
        if i != range.upperBound { throw syntax(i, "unexpected characters after the JSON value") }
    }

    /// The index just past the string that starts with the quote at `start`.
    private func skipString(_ start: Int, end: Int) throws -> Int {
        var i = start + 1
        while i < end {
            switch bytes[i] {
            case 0x22: return i + 1
            case 0x5C: i += 2
            default: i += 1
            }
        }
        throw syntax(end, "unexpected end of input")
    }

    /// The index just past the value that starts at `start` (strings, containers and scalars
    /// are skipped; nesting is counted without recursion).
    private func skipValue(_ start: Int, end: Int) throws -> Int {
        guard start < end else { throw syntax(start, "unexpected end of input") }
        switch bytes[start] {
        case 0x22:
            return try skipString(start, end: end)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var i = start
            while i < end {
                switch bytes[i] {
                case 0x22:
                    i = try skipString(i, end: end)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default:
                    break
                }
                i += 1
            }
            throw syntax(end, "unexpected end of input")
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"):
            throw syntax(start, "expected a value (object, array, string, number, true, false or null)")
        default:
            var i = start
            while i < end {
                switch bytes[i] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D:
                    return i
                default:
                    i += 1
                }
            }
            return i
        }
    }

    private func decodeKey(_ range: Range<Int>) throws -> String {
        if let plain = bytes.withUnsafeBufferPointer({ plainString($0, range) }) { return plain }
        if !bytes[range].contains(0x5C),
            let plain = String(validating: bytes[range.dropFirst().dropLast()], as: UTF8.self)
        {
            return plain
        }
        guard case .string(let key) = try JSONParser.parse(bytes[range]) else {
            throw syntax(range.lowerBound, "expected a '\"'-quoted key")
        }
        return key
    }

    private func syntax(_ byte: Int, _ what: String) -> ProtocolError {
        ProtocolError.malformed("Invalid JSON at byte \(byte): \(what).")
    }

    private static func notObject(_ bytes: [UInt8], _ range: Range<Int>) -> ProtocolError {
        ProtocolError.malformed("Invalid JSON: expected an object at byte \(range.lowerBound).")
    }
}
