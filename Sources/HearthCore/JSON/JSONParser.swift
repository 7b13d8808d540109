/// A strict JSON parser (RFC 8259) into `JSONValue`, optionally accepting `//` and `/* */`
/// comments as rules files do.
public enum JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    static let maxNesting = 512

    /// Parses one JSON document.
    /// - Throws: `CoreError` (`.invalidJSON`, `.tooDeep`) naming the byte offset.
    public static func parse(_ bytes: some Collection<UInt8>, allowComments: Bool = false) throws -> JSONValue {
        if let result = try bytes.withContiguousStorageIfAvailable({ buffer in
            try parse(buffer: UnsafeRawBufferPointer(buffer), allowComments: allowComments)
        }) {
            return result
        }
        let copy = Array(bytes)
        return try copy.withUnsafeBytes { try parse(buffer: $0, allowComments: allowComments) }
    }

    /// Parses one JSON document held in a string.
    public static func parse(_ text: String, allowComments: Bool = false) throws -> JSONValue {
        var text = text
        return try text.withUTF8 { try parse(buffer: UnsafeRawBufferPointer($0), allowComments: allowComments) }
    }

    static func parse(buffer: UnsafeRawBufferPointer, allowComments: Bool) throws -> JSONValue {
        guard let base = buffer.baseAddress, buffer.count > 0 else { throw CoreError.unexpectedEnd(0) }
        var scanner = JSONScanner(
            base: base.assumingMemoryBound(to: UInt8.self),
            count: buffer.count,
            allowComments: allowComments
        )
        let value = try readValue(&scanner, depth: 0)
        guard try scanner.skipWhitespace() else { throw CoreError.unterminatedComment(scanner.byte(scanner.position)) }
        if !scanner.atEnd { throw CoreError.trailingCharacters(scanner.byte(scanner.position)) }
        return value
    }

    /// Reads one value at the scanner's cursor (used also for `.sv` and `.priority` objects).
    static func readValue(_ scanner: inout JSONScanner, depth: Int) throws -> JSONValue {
        var reader = Reader(scanner: scanner)
        defer { scanner = reader.scanner }
        return try reader.value(depth: depth)
    }

    private struct Reader {
        var scanner: JSONScanner

        mutating func next() throws -> UInt8 {
            guard try scanner.skipWhitespace(), let b = scanner.peek() else {
                throw CoreError.unexpectedEnd(scanner.byte(scanner.end))
            }
            return b
        }

        mutating func value(depth: Int) throws -> JSONValue {
            let b = try next()
            switch b {
            case UInt8(ascii: "{"):
                guard depth < JSONParser.maxNesting else {
                    throw CoreError.nestingTooDeep(byte: scanner.byte(scanner.position))
                }
                scanner.position += 1
                var members: [(String, JSONValue)] = []
                if try next() == UInt8(ascii: "}") {
                    scanner.position += 1
                    return .object(members)
                }
                while true {
                    guard try next() == 0x22 else { throw CoreError.expectedKey(scanner.byte(scanner.position)) }
                    guard let key = try scanner.scanString() else {
                        throw CoreError.unexpectedEnd(scanner.byte(scanner.end))
                    }
                    guard try next() == UInt8(ascii: ":") else {
                        throw CoreError.expectedColon(scanner.byte(scanner.position))
                    }
                    scanner.position += 1
                    members.append((key, try value(depth: depth + 1)))
                    let c = try next()
                    scanner.position += 1
                    if c == UInt8(ascii: ",") { continue }
                    if c == UInt8(ascii: "}") { return .object(members) }
                    throw CoreError.expectedAfterMember(scanner.byte(scanner.position - 1))
                }
            case UInt8(ascii: "["):
                guard depth < JSONParser.maxNesting else {
                    throw CoreError.nestingTooDeep(byte: scanner.byte(scanner.position))
                }
                scanner.position += 1
                var elements: [JSONValue] = []
                if try next() == UInt8(ascii: "]") {
                    scanner.position += 1
                    return .array(elements)
                }
                while true {
                    elements.append(try value(depth: depth + 1))
                    let c = try next()
                    scanner.position += 1
                    if c == UInt8(ascii: ",") { continue }
                    if c == UInt8(ascii: "]") { return .array(elements) }
                    throw CoreError.expectedAfterElement(scanner.byte(scanner.position - 1))
                }
            case 0x22:
                guard let s = try scanner.scanString() else { throw CoreError.unexpectedEnd(scanner.byte(scanner.end)) }
                return .string(s)
            case UInt8(ascii: "-"), 0x30...0x39:
                return .number(try scanner.scanNumber(isFinal: true)!)
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                guard let literal = try scanner.scanLiteral() else {
                    throw CoreError.unexpectedEnd(scanner.byte(scanner.end))
                }
                switch literal {
                case .true: return .bool(true)
                case .false: return .bool(false)
                case .null: return .null
                }
            default:
                throw CoreError.expectedValue(scanner.byte(scanner.position), found: b)
            }
        }
    }
}
