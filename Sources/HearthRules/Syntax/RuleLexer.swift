/// Splits a rule expression into tokens, JavaScript style: `/` starts a regular expression
/// literal where an operand is expected, and is division after one.
struct RuleLexer {
    let scalars: [Unicode.Scalar]

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    static let punctuations: [String] = [
        "===", "!==", "==", "!=", "<=", ">=", "&&", "||",
        "(", ")", "[", "]", ".", ",", "?", ":", "!", "<", ">", "+", "-", "*", "/", "%",
    ]

    func tokenize() throws(RuleSyntaxError) -> [RuleToken] {
        var tokens: [RuleToken] = []
        var i = 0
        let n = scalars.count
        func isIdentStart(_ c: Unicode.Scalar) -> Bool {
            c == "_" || c == "$" || ("a"..."z").contains(c) || ("A"..."Z").contains(c)
        }
        func isIdentPart(_ c: Unicode.Scalar) -> Bool { isIdentStart(c) || ("0"..."9").contains(c) }
        func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }

        while i < n {
            let c = scalars[i]
            if c == " " || c == "\t" || c == "\n" || c == "\r" {
                i += 1
                continue
            }
            let start = i
            if isIdentStart(c) {
                var name = String.UnicodeScalarView()
                while i < n, isIdentPart(scalars[i]) {
                    name.append(scalars[i])
                    i += 1
                }
                tokens.append(RuleToken(kind: .identifier(String(name)), offset: start, end: i))
                continue
            }
            if isDigit(c) || (c == "." && i + 1 < n && isDigit(scalars[i + 1])) {
                var text = ""
                while i < n, isDigit(scalars[i]) || scalars[i] == "." {
                    text.unicodeScalars.append(scalars[i])
                    i += 1
                }
                if i < n, scalars[i] == "e" || scalars[i] == "E" {
                    text.unicodeScalars.append(scalars[i])
                    i += 1
                    if i < n, scalars[i] == "+" || scalars[i] == "-" {
                        text.unicodeScalars.append(scalars[i])
                        i += 1
                    }
                    while i < n, isDigit(scalars[i]) {
                        text.unicodeScalars.append(scalars[i])
                        i += 1
                    }
                }
                if i < n, isIdentStart(scalars[i]) {
                    while i < n, isIdentPart(scalars[i]) {
                        text.unicodeScalars.append(scalars[i])
                        i += 1
                    }
                    throw RuleSyntaxError(offset: start, message: Message.badNumber(text))
                }
                guard let value = Double(text) else {
                    throw RuleSyntaxError(offset: start, message: Message.badNumber(text))
                }
                tokens.append(RuleToken(kind: .number(value), offset: start, end: i))
                continue
            }
            if c == "'" || c == "\"" {
                let value = try string(&i, quote: c)
                tokens.append(RuleToken(kind: .string(value), offset: start, end: i))
                continue
            }
            if c == "/" && expectsOperand(after: tokens.last) {
                tokens.append(try regex(&i))
                continue
            }
            var matched: String?
            for p in Self.punctuations {
                let ps = Array(p.unicodeScalars)
                if i + ps.count <= n, Array(scalars[i..<(i + ps.count)]) == ps {
                    matched = p
                    break
                }
            }
            if let p = matched {
                i += p.unicodeScalars.count
                tokens.append(RuleToken(kind: .punctuation(p), offset: start, end: i))
                continue
            }
            switch c {
            case "=": throw RuleSyntaxError(offset: start, message: Message.assignment())
            case "&", "|": throw RuleSyntaxError(offset: start, message: Message.bitwise(String(Character(c))))
            default: throw RuleSyntaxError(offset: start, message: Message.unexpectedCharacter(String(Character(c))))
            }
        }
        tokens.append(RuleToken(kind: .end, offset: n, end: n))
        return tokens
    }

    private func expectsOperand(after token: RuleToken?) -> Bool {
        guard let token else { return true }
        switch token.kind {
        case .punctuation(let p): return p != ")" && p != "]"
        case .end: return true
        default: return false
        }
    }

    private func string(_ i: inout Int, quote: Unicode.Scalar) throws(RuleSyntaxError) -> String {
        let start = i
        i += 1
        var result = String.UnicodeScalarView()
        while true {
            guard i < scalars.count else { throw RuleSyntaxError(offset: start, message: Message.unterminatedString()) }
            let c = scalars[i]
            if c == quote {
                i += 1
                return String(result)
            }
            if c == "\\" {
                guard i + 1 < scalars.count else {
                    throw RuleSyntaxError(offset: start, message: Message.unterminatedString())
                }
                let e = scalars[i + 1]
                let escapeOffset = i
                i += 2
                switch e {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "b": result.append("\u{8}")
                case "f": result.append("\u{C}")
                case "v": result.append("\u{B}")
                case "0": result.append("\u{0}")
                case "'", "\"", "\\", "/": result.append(e)
                case "u", "x":
                    let count = e == "u" ? 4 : 2
                    func hex(_ at: Int, _ count: Int) -> UInt32? {
                        guard at + count <= scalars.count else { return nil }
                        return UInt32(String(String.UnicodeScalarView(scalars[at..<(at + count)])), radix: 16)
                    }
                    guard var value = hex(i, count) else {
                        throw RuleSyntaxError(
                            offset: escapeOffset,
                            message: Message.badStringEscape(String(Character(e)))
                        )
                    }
                    i += count
                    // A UTF-16 surrogate pair written as two escapes is one scalar.
                    if (0xD800...0xDBFF).contains(value), i + 6 <= scalars.count, scalars[i] == "\\",
                        scalars[i + 1] == "u", let low = hex(i + 2, 4), (0xDC00...0xDFFF).contains(low)
                    {
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                    result.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                default:
                    throw RuleSyntaxError(offset: escapeOffset, message: Message.badStringEscape(String(Character(e))))
                }
                continue
            }
            result.append(c)
            i += 1
        }
    }

    private func regex(_ i: inout Int) throws(RuleSyntaxError) -> RuleToken {
        let start = i
        i += 1
        var pattern = String.UnicodeScalarView()
        var inClass = false
        while true {
            guard i < scalars.count else { throw RuleSyntaxError(offset: start, message: Message.unterminatedRegex()) }
            let c = scalars[i]
            if c == "\\" {
                guard i + 1 < scalars.count else {
                    throw RuleSyntaxError(offset: start, message: Message.unterminatedRegex())
                }
                pattern.append(c)
                pattern.append(scalars[i + 1])
                i += 2
                continue
            }
            if c == "[" { inClass = true }
            if c == "]" { inClass = false }
            if c == "/" && !inClass {
                i += 1
                break
            }
            pattern.append(c)
            i += 1
        }
        let flagsOffset = i
        var flags = ""
        while i < scalars.count, ("a"..."z").contains(scalars[i]) || ("A"..."Z").contains(scalars[i]) {
            flags.unicodeScalars.append(scalars[i])
            i += 1
        }
        return RuleToken(
            kind: .regex(pattern: String(pattern), flags: flags, flagsOffset: flagsOffset),
            offset: start,
            end: i
        )
    }
}
