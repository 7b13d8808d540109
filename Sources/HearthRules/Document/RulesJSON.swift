internal import HearthCore

/// A JSON value of a rules file with the position of every value and key, and for strings the
/// position of every decoded scalar (so that an expression's columns map back to the file).
struct RulesJSON {
    enum Kind {
        case null
        case bool(Bool)
        case number(Double)
        case string(String, scalarPositions: [SourcePosition])
        case array([RulesJSON])
        case object([Member])
    }

    struct Member {
        var key: String
        var keyPosition: SourcePosition
        var value: RulesJSON
    }

    var kind: Kind
    var position: SourcePosition

    /// A short description for messages ("a number", "an array").
    var kindDescription: String {
        switch kind {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Converts to HearthCore's `JSONValue` (positions dropped).
    var jsonValue: JSONValue {
        switch kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return .number(n)
        case .string(let s, _): return .string(s)
        case .array(let a): return .array(a.map(\.jsonValue))
        case .object(let members): return .object(members.map { ($0.key, $0.value.jsonValue) })
        }
    }
}

/// A JSON parser for rules files: `//` and `/* */` comments, raw line breaks inside strings (a
/// rule expression broken across lines), positions tracked.
struct RulesJSONParser {
    struct Failure: Error {
        var position: SourcePosition
        var message: String
    }

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private var column = 1

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    static func parse(_ text: String) throws(Failure) -> RulesJSON {
        var parser = RulesJSONParser(text)
        let value = try parser.value(depth: 0)
        try parser.skipWhitespace()
        if parser.index < parser.scalars.count { throw parser.failure(Message.jsonTrailing()) }
        return value
    }

    private var here: SourcePosition { SourcePosition(line: line, column: column) }

    private func failure(_ message: String, at position: SourcePosition? = nil) -> Failure {
        Failure(position: position ?? here, message: message)
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func advance() {
        if scalars[index] == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
        index += 1
    }

    private mutating func skipWhitespace() throws(Failure) {
        while let c = peek() {
            switch c {
            case " ", "\t", "\n", "\r":
                advance()
            case "/" where peek(1) == "/":
                while let d = peek(), d != "\n" { advance() }
            case "/" where peek(1) == "*":
                let start = here
                advance()
                advance()
                while true {
                    guard let d = peek() else { throw failure(Message.jsonUnterminatedComment(), at: start) }
                    if d == "*" && peek(1) == "/" {
                        advance()
                        advance()
                        break
                    }
                    advance()
                }
            default:
                return
            }
        }
    }

    private func describe(_ c: Unicode.Scalar?) -> String {
        guard let c else { return "end of document" }
        return "'\(Character(c))'"
    }

    private mutating func value(depth: Int) throws(Failure) -> RulesJSON {
        try skipWhitespace()
        guard let c = peek() else { throw failure(Message.jsonUnexpectedEnd()) }
        let start = here
        if depth > 64 { throw failure(Message.tooDeep()) }
        switch c {
        case "{":
            advance()
            var members: [RulesJSON.Member] = []
            try skipWhitespace()
            if peek() == "}" {
                advance()
                return RulesJSON(kind: .object(members), position: start)
            }
            while true {
                try skipWhitespace()
                guard peek() == "\"" else {
                    throw failure(Message.jsonUnexpected(describe(peek()), expected: "a key in double quotes"))
                }
                let keyPosition = here
                let (key, _) = try string()
                try skipWhitespace()
                guard peek() == ":" else { throw failure(Message.jsonUnexpected(describe(peek()), expected: "':'")) }
                advance()
                let member = try value(depth: depth + 1)
                members.append(RulesJSON.Member(key: key, keyPosition: keyPosition, value: member))
                try skipWhitespace()
                switch peek() {
                case ",": advance()
                case "}":
                    advance()
                    return RulesJSON(kind: .object(members), position: start)
                default: throw failure(Message.jsonUnexpected(describe(peek()), expected: "',' or '}'"))
                }
            }
        case "[":
            advance()
            var elements: [RulesJSON] = []
            try skipWhitespace()
            if peek() == "]" {
                advance()
                return RulesJSON(kind: .array(elements), position: start)
            }
            while true {
                elements.append(try value(depth: depth + 1))
                try skipWhitespace()
                switch peek() {
                case ",": advance()
                case "]":
                    advance()
                    return RulesJSON(kind: .array(elements), position: start)
                default: throw failure(Message.jsonUnexpected(describe(peek()), expected: "',' or ']'"))
                }
            }
        case "\"":
            let (s, positions) = try string()
            return RulesJSON(kind: .string(s, scalarPositions: positions), position: start)
        case "-", "0"..."9":
            var text = ""
            while let d = peek(), d == "-" || d == "+" || d == "." || d == "e" || d == "E" || ("0"..."9").contains(d) {
                text.unicodeScalars.append(d)
                advance()
            }
            guard isJSONNumber(text), let n = Double(text), n.isFinite else {
                throw failure(Message.jsonBadNumber(text), at: start)
            }
            return RulesJSON(kind: .number(n), position: start)
        default:
            var word = ""
            while let d = peek(), ("a"..."z").contains(d) {
                word.unicodeScalars.append(d)
                advance()
            }
            switch word {
            case "true": return RulesJSON(kind: .bool(true), position: start)
            case "false": return RulesJSON(kind: .bool(false), position: start)
            case "null": return RulesJSON(kind: .null, position: start)
            default:
                throw failure(
                    Message.jsonUnexpected(word.isEmpty ? describe(c) : "'\(word)'", expected: "a JSON value"),
                    at: start
                )
            }
        }
    }

    private func isJSONNumber(_ text: String) -> Bool {
        var s = Substring(text).unicodeScalars[...]
        if s.first == "-" { s = s.dropFirst() }
        guard let first = s.first, ("0"..."9").contains(first) else { return false }
        if first == "0", let second = s.dropFirst().first, ("0"..."9").contains(second) { return false }
        s = s.drop { ("0"..."9").contains($0) }
        if s.first == "." {
            s = s.dropFirst()
            guard let d = s.first, ("0"..."9").contains(d) else { return false }
            s = s.drop { ("0"..."9").contains($0) }
        }
        if s.first == "e" || s.first == "E" {
            s = s.dropFirst()
            if s.first == "+" || s.first == "-" { s = s.dropFirst() }
            guard let d = s.first, ("0"..."9").contains(d) else { return false }
            s = s.drop { ("0"..."9").contains($0) }
        }
        return s.isEmpty
    }

    /// Reads a string at the cursor (on its opening quote).
    private mutating func string() throws(Failure) -> (String, [SourcePosition]) {
        let start = here
        advance()
        var result = String.UnicodeScalarView()
        var positions: [SourcePosition] = []
        while true {
            guard let c = peek() else { throw failure(Message.jsonUnterminatedString(), at: start) }
            let position = here
            if c == "\"" {
                advance()
                return (String(result), positions)
            }
            // Firebase's rules parser takes line breaks and tabs inside a string as they are,
            // so a rule expression may span several lines of the file (each scalar keeps its
            // own line and column). Other control characters must be escaped.
            if c.value < 0x20 && c != "\n" && c != "\r" && c != "\t" {
                throw failure(Message.jsonControlCharacter())
            }
            if c == "\\" {
                advance()
                guard let e = peek() else { throw failure(Message.jsonUnterminatedString(), at: start) }
                advance()
                var decoded: Unicode.Scalar
                switch e {
                case "\"": decoded = "\""
                case "\\": decoded = "\\"
                case "/": decoded = "/"
                case "b": decoded = "\u{8}"
                case "f": decoded = "\u{C}"
                case "n": decoded = "\n"
                case "r": decoded = "\r"
                case "t": decoded = "\t"
                case "u":
                    var unit = try hex4(at: position)
                    if (0xD800...0xDBFF).contains(unit), peek() == "\\", peek(1) == "u" {
                        advance()
                        advance()
                        let low = try hex4(at: position)
                        if (0xDC00...0xDFFF).contains(low) {
                            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        }
                    }
                    decoded = Unicode.Scalar(unit) ?? "\u{FFFD}"
                default:
                    throw failure(Message.jsonBadEscape(String(Character(e))), at: position)
                }
                result.append(decoded)
                positions.append(position)
                continue
            }
            result.append(c)
            positions.append(position)
            advance()
        }
    }

    private mutating func hex4(at position: SourcePosition) throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let h = peek(),
                let digit =
                    h.properties.numericType != nil || ("a"..."f").contains(h)
                        || ("A"..."F").contains(h) ? UInt32(String(Character(h)), radix: 16) : nil
            else { throw failure(Message.jsonBadEscape("u"), at: position) }
            value = value * 16 + digit
            advance()
        }
        return value
    }
}
