/// A compiled regular expression of Firebase's subset (firebase.google.com/docs/reference/security/database/regex):
/// `\d \D \w \W \s \S`, `\` escapes, `^` only first, `$` only last, `* + ? {n} {n,} {n,m}`, `.`,
/// `( )`, `|`, `[abc]`, `[a-z]`, `[^...]`; the only flag is `i`. Matching finds the pattern
/// anywhere in the string unless anchored, with a step budget so a pathological pattern fails
/// the rule instead of hanging the server.
public struct RuleRegex: Hashable, Sendable, CustomStringConvertible {
    public let pattern: String
    public let ignoreCase: Bool
    let root: Node
    private(set) var anchoredStart: Bool
    private(set) var anchoredEnd: Bool

    indirect enum Node: Hashable, Sendable {
        case char(Unicode.Scalar)
        case any
        case set(CharacterSet)
        case sequence([Node])
        case alternation([Node])
        case repetition(Node, min: Int, max: Int?)
    }

    struct CharacterSet: Hashable, Sendable {
        enum Item: Hashable, Sendable {
            case scalar(Unicode.Scalar)
            case range(Unicode.Scalar, Unicode.Scalar)
            case digit(Bool)
            case word(Bool)
            case space(Bool)
        }

        var items: [Item]
        var negated: Bool

        func contains(_ c: Unicode.Scalar, ignoreCase: Bool) -> Bool {
            var hit = matches(c)
            if !hit && ignoreCase {
                let lower = RuleRegex.lower(c)
                let upper = RuleRegex.upper(c)
                hit = (lower != c && matches(lower)) || (upper != c && matches(upper))
            }
            return hit != negated
        }

        private func matches(_ c: Unicode.Scalar) -> Bool {
            for item in items {
                switch item {
                case .scalar(let s): if s == c { return true }
                case .range(let a, let b): if a.value <= c.value && c.value <= b.value { return true }
                case .digit(let positive): if RuleRegex.isDigit(c) == positive { return true }
                case .word(let positive): if RuleRegex.isWord(c) == positive { return true }
                case .space(let positive): if RuleRegex.isSpace(c) == positive { return true }
                }
            }
            return false
        }
    }

    public var description: String { "/\(pattern)/\(ignoreCase ? "i" : "")" }

    public static func == (lhs: RuleRegex, rhs: RuleRegex) -> Bool {
        lhs.pattern == rhs.pattern && lhs.ignoreCase == rhs.ignoreCase
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
        hasher.combine(ignoreCase)
    }

    /// A syntax error in a pattern, at a scalar offset inside the pattern.
    struct SyntaxError: Error {
        var offset: Int
        var detail: String
    }

    /// Compiles `pattern`.
    init(pattern: String, ignoreCase: Bool) throws(SyntaxError) {
        self.pattern = pattern
        self.ignoreCase = ignoreCase
        var scalars = Array(pattern.unicodeScalars)
        var start = 0
        var anchoredStart = false
        var anchoredEnd = false
        if scalars.first == "^" {
            anchoredStart = true
            start = 1
        }
        if scalars.count > start, scalars.last == "$" {
            // `\$` at the end is a literal dollar: count the backslashes before it.
            var backslashes = 0
            var j = scalars.count - 2
            while j >= start, scalars[j] == "\\" {
                backslashes += 1
                j -= 1
            }
            if backslashes % 2 == 0 {
                anchoredEnd = true
                scalars.removeLast()
            }
        }
        var parser = Parser(scalars: scalars, index: start)
        let root = try parser.alternation()
        if parser.index < scalars.count {
            throw SyntaxError(offset: parser.index, detail: "unmatched ')'")
        }
        self.root = root
        self.anchoredStart = anchoredStart
        self.anchoredEnd = anchoredEnd
    }

    /// The deepest nesting of groups accepted: parsing and matching recurse on groups.
    static let maxGroupDepth = 64

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index: Int
        /// Groups open around the one being parsed.
        var groups = 0

        func peek() -> Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        mutating func alternation() throws(SyntaxError) -> Node {
            var start = index
            var branches = [try sequence()]
            var empty = index == start
            while peek() == "|" {
                // Firebase refuses an empty alternative (observed: `/^(foo|)$/` does not deploy).
                if empty { throw SyntaxError(offset: index, detail: "empty alternative before '|'") }
                index += 1
                start = index
                branches.append(try sequence())
                empty = index == start
                if empty { throw SyntaxError(offset: index - 1, detail: "empty alternative after '|'") }
            }
            return branches.count == 1 ? branches[0] : .alternation(branches)
        }

        mutating func sequence() throws(SyntaxError) -> Node {
            var items: [Node] = []
            while let c = peek(), c != "|", c != ")" {
                var atom = try self.atom()
                while let q = peek() {
                    let quantifierOffset = index
                    var bounds: (Int, Int?)
                    switch q {
                    case "*": bounds = (0, nil)
                    case "+": bounds = (1, nil)
                    case "?": bounds = (0, 1)
                    case "{":
                        guard let parsed = braces() else {
                            throw SyntaxError(
                                offset: index,
                                detail: "'{' must start a quantifier such as {2} or {1,3}; escape it as '\\{'"
                            )
                        }
                        bounds = parsed
                    default: bounds = (-1, nil)
                    }
                    if bounds.0 < 0 { break }
                    if q != "{" { index += 1 }
                    if case .repetition = atom {
                        throw SyntaxError(
                            offset: quantifierOffset,
                            detail: "nothing to repeat before '\(Character(q))'"
                        )
                    }
                    atom = .repetition(atom, min: bounds.0, max: bounds.1)
                }
                items.append(atom)
            }
            return items.count == 1 ? items[0] : .sequence(items)
        }

        mutating func braces() -> (Int, Int?)? {
            var j = index + 1
            func number() -> Int? {
                var text = ""
                while j < scalars.count, ("0"..."9").contains(scalars[j]) {
                    text.unicodeScalars.append(scalars[j])
                    j += 1
                }
                return Int(text)
            }
            guard let low = number() else { return nil }
            var high: Int? = low
            if j < scalars.count, scalars[j] == "," {
                j += 1
                high = number()
            }
            guard j < scalars.count, scalars[j] == "}" else { return nil }
            if let high, high < low { return nil }
            index = j + 1
            return (low, high)
        }

        mutating func atom() throws(SyntaxError) -> Node {
            let c = scalars[index]
            let offset = index
            index += 1
            switch c {
            case "(":
                if peek() == "?" { throw SyntaxError(offset: index, detail: "'(?' groups are not supported") }
                groups += 1
                if groups > RuleRegex.maxGroupDepth {
                    throw SyntaxError(offset: offset, detail: "groups nested deeper than \(RuleRegex.maxGroupDepth)")
                }
                let inner = try alternation()
                groups -= 1
                guard peek() == ")" else { throw SyntaxError(offset: offset, detail: "unmatched '('") }
                index += 1
                // A group is an atom of its own: `(a*)*` repeats the group, not `a*` twice.
                if case .repetition = inner { return .sequence([inner]) }
                return inner
            case "[":
                return .set(try characterClass(openedAt: offset))
            case ".":
                return .any
            case "\\":
                guard let e = peek() else {
                    throw SyntaxError(offset: offset, detail: "'\\' at the end of the pattern")
                }
                index += 1
                if let item = RuleRegex.classEscape(e) { return .set(CharacterSet(items: [item], negated: false)) }
                return .char(RuleRegex.literalEscape(e))
            case "^":
                throw SyntaxError(offset: offset, detail: "'^' can only be the first character of the pattern")
            case "$":
                throw SyntaxError(offset: offset, detail: "'$' can only be the last character of the pattern")
            case "*", "+", "?":
                throw SyntaxError(offset: offset, detail: "nothing to repeat before '\(Character(c))'")
            case "{":
                throw SyntaxError(offset: offset, detail: "nothing to repeat before '{'")
            default:
                return .char(c)
            }
        }

        mutating func characterClass(openedAt offset: Int) throws(SyntaxError) -> CharacterSet {
            var negated = false
            if peek() == "^" {
                negated = true
                index += 1
            }
            var items: [CharacterSet.Item] = []
            var first = true
            while true {
                guard let c = peek() else { throw SyntaxError(offset: offset, detail: "unmatched '['") }
                if c == "]" && !first {
                    index += 1
                    break
                }
                first = false
                index += 1
                var low: Unicode.Scalar
                if c == "\\" {
                    guard let e = peek() else { throw SyntaxError(offset: offset, detail: "unmatched '['") }
                    index += 1
                    if let item = RuleRegex.classEscape(e) {
                        items.append(item)
                        continue
                    }
                    low = RuleRegex.literalEscape(e)
                } else {
                    low = c
                }
                if peek() == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    index += 1
                    var high = scalars[index]
                    index += 1
                    if high == "\\" {
                        guard let e = peek() else { throw SyntaxError(offset: offset, detail: "unmatched '['") }
                        index += 1
                        high = RuleRegex.literalEscape(e)
                    }
                    guard low.value <= high.value else {
                        throw SyntaxError(offset: index - 1, detail: "range out of order in a character class")
                    }
                    items.append(.range(low, high))
                } else {
                    items.append(.scalar(low))
                }
            }
            return CharacterSet(items: items, negated: negated)
        }
    }

    static func classEscape(_ e: Unicode.Scalar) -> CharacterSet.Item? {
        switch e {
        case "d": return .digit(true)
        case "D": return .digit(false)
        case "w": return .word(true)
        case "W": return .word(false)
        case "s": return .space(true)
        case "S": return .space(false)
        default: return nil
        }
    }

    static func literalEscape(_ e: Unicode.Scalar) -> Unicode.Scalar {
        switch e {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        default: return e
        }
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }
    static func isWord(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_"
    }
    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
            return true
        default: return false
        }
    }
    static func lower(_ c: Unicode.Scalar) -> Unicode.Scalar {
        if c.isASCII { return ("A"..."Z").contains(c) ? Unicode.Scalar(c.value + 32)! : c }
        let mapped = c.properties.lowercaseMapping.unicodeScalars
        return mapped.count == 1 ? mapped.first! : c
    }
    static func upper(_ c: Unicode.Scalar) -> Unicode.Scalar {
        if c.isASCII { return ("a"..."z").contains(c) ? Unicode.Scalar(c.value - 32)! : c }
        let mapped = c.properties.uppercaseMapping.unicodeScalars
        return mapped.count == 1 ? mapped.first! : c
    }
}
