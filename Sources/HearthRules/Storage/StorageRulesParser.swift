/// Parses a storage rules file (`rules_version = '2'; service firebase.storage { match ... }`):
/// a recursive-descent parser straight over the file's scalars, since what a `/` or a `{` means
/// depends on where it stands (a `match` path, a path literal, a division, a block, a map).
/// Stops at the first syntax error, with its line and column.
struct StorageRulesParser {
    struct Failure: Error {
        let offset: Int
        let message: String
    }

    let scalars: [Unicode.Scalar]
    let lineStarts: [Int]
    var index = 0
    /// How deeply expressions nest here (parsing recurses on them).
    var depth = 0
    static let maxDepth = 64

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
        var starts = [0]
        for (i, c) in scalars.enumerated() where c == "\n" { starts.append(i + 1) }
        lineStarts = starts
    }

    func position(_ offset: Int) -> SourcePosition {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return SourcePosition(line: low + 1, column: offset - lineStarts[low] + 1)
    }

    // MARK: Declarations

    mutating func file() throws(Failure) -> StorageRulesSyntax {
        skipSpace()
        var version = 1
        if peekWord() == "rules_version" {
            let start = index
            _ = word()
            try expect("=")
            skipSpace()
            let valueStart = index
            guard peek() == "'" || peek() == "\"" else { throw fail(valueStart, Message.storageVersion("?")) }
            let text = try stringLiteral()
            guard text == "1" || text == "2" else { throw fail(valueStart, Message.storageVersion(text)) }
            version = text == "2" ? 2 : 1
            _ = consume(";")
            _ = start
        }
        skipSpace()
        guard peekWord() == "service" else {
            throw fail(
                index,
                atEnd
                    ? Message.storageNoService() : Message.storageExpected("'service firebase.storage'", found: found())
            )
        }
        _ = word()
        skipSpace()
        let serviceStart = index
        var service = try identifier()
        while consume(".") { service += "." + (try identifier()) }
        guard service == "firebase.storage" else { throw fail(serviceStart, Message.storageService(service)) }
        try expect("{")
        var functions: [StorageFunctionSyntax] = []
        var matches: [StorageMatchSyntax] = []
        while true {
            skipSpace()
            if consume("}") { break }
            switch peekWord() {
            case "match": matches.append(try match())
            case "function": functions.append(try function())
            default:
                throw fail(
                    index,
                    atEnd
                        ? Message.storageUnclosed("service")
                        : Message.storageExpected("'match' or 'function'", found: found())
                )
            }
        }
        skipSpace()
        guard atEnd else { throw fail(index, Message.storageTrailing()) }
        return StorageRulesSyntax(version: version, service: service, functions: functions, matches: matches)
    }

    mutating func match() throws(Failure) -> StorageMatchSyntax {
        skipSpace()
        let start = index
        _ = word()
        skipSpace()
        guard peek() == "/" else {
            throw fail(index, Message.storageExpected("a path starting with '/'", found: found()))
        }
        var segments: [StoragePatternSegment] = []
        while consume("/") {
            let segmentStart = index
            if consume("{") {
                let name = try identifier()
                let equalsAt = index
                if consume("=") {
                    guard consume("*"), consume("*") else { throw fail(equalsAt, Message.storageRecursiveWildcard()) }
                    segments.append(.recursive(name))
                } else {
                    segments.append(.wildcard(name))
                }
                guard consume("}") else {
                    throw fail(index, Message.storageExpected("'}' closing the wildcard", found: found()))
                }
            } else {
                var text = ""
                while let c = peek(), !isSpace(c), c != "/", c != "{", c != "}" {
                    text.unicodeScalars.append(c)
                    index += 1
                }
                guard !text.isEmpty else { throw fail(segmentStart, Message.storageEmptySegment()) }
                segments.append(.literal(text))
            }
        }
        var block = StorageMatchSyntax(segments: segments, position: position(start))
        try expect("{")
        while true {
            skipSpace()
            if consume("}") { break }
            switch peekWord() {
            case "match": block.matches.append(try match())
            case "function": block.functions.append(try function())
            case "allow": block.allows.append(try allow())
            default:
                throw fail(
                    index,
                    atEnd
                        ? Message.storageUnclosed("match")
                        : Message.storageExpected("'allow', 'match' or 'function'", found: found())
                )
            }
        }
        return block
    }

    mutating func allow() throws(Failure) -> StorageAllowSyntax {
        skipSpace()
        let start = index
        _ = word()
        var words: [String] = []
        var methods = Set<StorageMethod>()
        repeat {
            skipSpace()
            let wordStart = index
            let name = try identifier()
            guard let covered = StorageMethod.covered(by: name) else {
                throw fail(
                    wordStart,
                    Message.storageUnknownMethod(
                        name,
                        suggestion: Suggestion.closest(to: name, among: StorageMethod.words)
                    )
                )
            }
            words.append(name)
            methods.formUnion(covered)
        } while consume(",")
        var condition: StorageExpression?
        if consume(":") {
            skipSpace()
            guard peekWord() == "if" else {
                throw fail(index, Message.storageExpected("'if' after ':'", found: found()))
            }
            _ = word()
            condition = try expression()
        }
        skipSpace()
        guard consume(";") || peek() == "}" else {
            throw fail(index, Message.storageExpected("';' after the allow rule", found: found()))
        }
        return StorageAllowSyntax(words: words, methods: methods, condition: condition, position: position(start))
    }

    mutating func function() throws(Failure) -> StorageFunctionSyntax {
        skipSpace()
        let start = index
        _ = word()
        skipSpace()
        let name = try identifier()
        try expect("(")
        var parameters: [String] = []
        skipSpace()
        if !consume(")") {
            repeat { parameters.append(try identifier()) } while consume(",")
            try expect(")")
        }
        try expect("{")
        var bindings: [(name: String, value: StorageExpression, position: SourcePosition)] = []
        while true {
            skipSpace()
            let statementStart = index
            switch peekWord() {
            case "let":
                _ = word()
                let bound = try identifier()
                try expect("=")
                let value = try expression()
                try expect(";")
                bindings.append((bound, value, position(statementStart)))
            case "return":
                _ = word()
                let result = try expression()
                _ = consume(";")
                try expect("}")
                return StorageFunctionSyntax(
                    name: name,
                    parameters: parameters,
                    bindings: bindings,
                    result: result,
                    position: position(start)
                )
            default:
                throw fail(index, Message.storageExpected("'let' or 'return' in the function body", found: found()))
            }
        }
    }

    // MARK: Expressions

    mutating func expression() throws(Failure) -> StorageExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw fail(index, Message.expressionTooDeep(Self.maxDepth)) }
        skipSpace()
        let start = index
        let condition = try orExpression()
        skipSpace()
        guard peek() == "?" else { return condition }
        index += 1
        let then = try expression()
        try expect(":")
        let otherwise = try expression()
        return make(.conditional(condition, then, otherwise), from: start)
    }

    mutating func orExpression() throws(Failure) -> StorageExpression {
        skipSpace()
        let start = index
        var left = try andExpression()
        while consume("||") {
            let right = try andExpression()
            left = make(.or(left, right), from: start)
        }
        return left
    }

    mutating func andExpression() throws(Failure) -> StorageExpression {
        skipSpace()
        let start = index
        var left = try relation()
        while consume("&&") {
            let right = try relation()
            left = make(.and(left, right), from: start)
        }
        return left
    }

    mutating func relation() throws(Failure) -> StorageExpression {
        skipSpace()
        let start = index
        var left = try additive()
        while true {
            skipSpace()
            let op: StorageOperator
            if consume("==") {
                op = .equal
            } else if consume("!=") {
                op = .notEqual
            } else if consume("<=") {
                op = .lessOrEqual
            } else if consume(">=") {
                op = .greaterOrEqual
            } else if consume("<") {
                op = .less
            } else if consume(">") {
                op = .greater
            } else if peekWord() == "in" {
                _ = word()
                op = .in
            } else if peekWord() == "is" {
                _ = word()
                skipSpace()
                let typeStart = index
                let type = try identifier()
                guard StorageRuleValue.typeNames.contains(type) else {
                    throw fail(
                        typeStart,
                        Message.storageUnknownType(
                            type,
                            suggestion: Suggestion.closest(to: type, among: StorageRuleValue.typeNames)
                        )
                    )
                }
                left = make(.isType(left, type), from: start)
                continue
            } else if peek() == "=" {
                throw fail(index, Message.assignment())
            } else {
                return left
            }
            let right = try additive()
            left = make(.binary(op, left, right), from: start)
        }
    }

    mutating func additive() throws(Failure) -> StorageExpression {
        skipSpace()
        let start = index
        var left = try multiplicative()
        while true {
            skipSpace()
            if consume("+") {
                let right = try multiplicative()
                left = make(.binary(.plus, left, right), from: start)
            } else if peek() == "-" {
                index += 1
                let right = try multiplicative()
                left = make(.binary(.minus, left, right), from: start)
            } else {
                return left
            }
        }
    }

    mutating func multiplicative() throws(Failure) -> StorageExpression {
        skipSpace()
        let start = index
        var left = try unary()
        while true {
            skipSpace()
            let op: StorageOperator
            if consume("*") {
                op = .times
            } else if peek() == "/", peek(1) != "/", peek(1) != "*" {
                index += 1
                op = .divide
            } else if consume("%") {
                op = .modulo
            } else {
                return left
            }
            let right = try unary()
            left = make(.binary(op, left, right), from: start)
        }
    }

    mutating func unary() throws(Failure) -> StorageExpression {
        skipSpace()
        let start = index
        if peek() == "!", peek(1) != "=" {
            index += 1
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maxDepth else { throw fail(index, Message.expressionTooDeep(Self.maxDepth)) }
            let operand = try unary()
            return make(.not(operand), from: start)
        }
        if peek() == "-" {
            index += 1
            skipSpace()
            if let c = peek(), isDigit(c) {
                index = start + 1
                return try postfix(try number(negative: true, start: start), start: start)
            }
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maxDepth else { throw fail(index, Message.expressionTooDeep(Self.maxDepth)) }
            let operand = try unary()
            return make(.negate(operand), from: start)
        }
        return try postfix(try primary(), start: start)
    }

    mutating func postfix(_ base: StorageExpression, start: Int) throws(Failure) -> StorageExpression {
        var result = base
        while true {
            skipSpace()
            if consume(".") {
                skipSpace()
                let name = try identifier()
                result = make(.member(result, name), from: start)
            } else if consume("[") {
                skipSpace()
                if consume(":") {
                    let end = try expression()
                    try expect("]")
                    result = make(.slice(result, nil, end), from: start)
                    continue
                }
                let first = try expression()
                skipSpace()
                if consume(":") {
                    skipSpace()
                    let end = peek() == "]" ? nil : try expression()
                    try expect("]")
                    result = make(.slice(result, first, end), from: start)
                } else {
                    try expect("]")
                    result = make(.index(result, first), from: start)
                }
            } else if peek() == "(" {
                index += 1
                let arguments = try list(closing: ")")
                result = make(.call(result, arguments), from: start)
            } else {
                return result
            }
        }
    }

    mutating func primary() throws(Failure) -> StorageExpression {
        skipSpace()
        let start = index
        guard let c = peek() else { throw fail(index, Message.storageUnexpectedEnd()) }
        if c == "(" {
            index += 1
            let inner = try expression()
            try expect(")")
            return make(inner.kind, from: start)
        }
        if c == "[" {
            index += 1
            let items = try list(closing: "]")
            return make(.list(items), from: start)
        }
        if c == "{" {
            index += 1
            var entries: [(StorageExpression, StorageExpression)] = []
            skipSpace()
            if !consume("}") {
                repeat {
                    skipSpace()
                    if peek() == "}" { break }
                    let key = try expression()
                    try expect(":")
                    entries.append((key, try expression()))
                } while consume(",")
                try expect("}")
            }
            return make(.map(entries), from: start)
        }
        if c == "'" || c == "\"" {
            let text = try stringLiteral()
            return make(.string(text), from: start)
        }
        if (c == "r" || c == "R"), peek(1) == "'" || peek(1) == "\"" {
            index += 1
            let text = try stringLiteral(raw: true)
            return make(.string(text), from: start)
        }
        if (c == "b" || c == "B"), peek(1) == "'" || peek(1) == "\"" {
            index += 1
            let text = try stringLiteral()
            return make(.bytes(Array(text.utf8)), from: start)
        }
        if isDigit(c) || (c == "." && peek(1).map(isDigit) == true) { return try number(negative: false, start: start) }
        if c == "/" { return try pathLiteral() }
        if isIdentifierStart(c) {
            let name = word()
            switch name {
            case "true": return make(.bool(true), from: start)
            case "false": return make(.bool(false), from: start)
            case "null": return make(.null, from: start)
            default: return make(.identifier(name), from: start)
            }
        }
        throw fail(index, Message.storageExpected("a value", found: found()))
    }

    mutating func list(closing: Unicode.Scalar) throws(Failure) -> [StorageExpression] {
        var items: [StorageExpression] = []
        skipSpace()
        if consume(closing) { return items }
        repeat {
            skipSpace()
            if peek() == closing { break }
            items.append(try expression())
        } while consume(",")
        try expect(closing)
        return items
    }

    mutating func pathLiteral() throws(Failure) -> StorageExpression {
        let start = index
        var parts: [StoragePathPart] = []
        while peek() == "/" {
            index += 1
            if peek() == "$", peek(1) == "(" {
                index += 2
                let inner = try expression()
                try expect(")")
                parts.append(.interpolation(inner))
                continue
            }
            var text = ""
            while let c = peek(), isPathCharacter(c) {
                text.unicodeScalars.append(c)
                index += 1
            }
            guard !text.isEmpty else { throw fail(index, Message.storageEmptySegment()) }
            parts.append(.literal(text))
        }
        return make(.path(parts), from: start)
    }

    mutating func number(negative: Bool, start: Int) throws(Failure) -> StorageExpression {
        var text = negative ? "-" : ""
        var isFloat = false
        if peek() == "0", peek(1) == "x" || peek(1) == "X" {
            index += 2
            var hex = ""
            while let c = peek(), c.properties.isASCIIHexDigit {
                hex.unicodeScalars.append(c)
                index += 1
            }
            guard let value = Int64(hex, radix: 16) else { throw fail(start, Message.badNumber("0x" + hex)) }
            return make(.int(negative ? -value : value), from: start)
        }
        while let c = peek(), isDigit(c) || c == "." {
            if c == "." {
                guard !isFloat, peek(1).map(isDigit) == true || text.last.map({ $0.isNumber }) == true else { break }
                isFloat = true
            }
            text.unicodeScalars.append(c)
            index += 1
        }
        if let c = peek(), c == "e" || c == "E" {
            isFloat = true
            text.unicodeScalars.append(c)
            index += 1
            if let sign = peek(), sign == "+" || sign == "-" {
                text.unicodeScalars.append(sign)
                index += 1
            }
            while let c = peek(), isDigit(c) {
                text.unicodeScalars.append(c)
                index += 1
            }
        }
        if let c = peek(), isIdentifierStart(c) { throw fail(start, Message.badNumber(text + String(c))) }
        if isFloat {
            guard let value = Double(text) else { throw fail(start, Message.badNumber(text)) }
            return make(.float(value), from: start)
        }
        guard let value = Int64(text) else { throw fail(start, Message.storageIntegerRange(text)) }
        return make(.int(value), from: start)
    }

    mutating func stringLiteral(raw: Bool = false) throws(Failure) -> String {
        let start = index
        guard let quote = peek() else { throw fail(index, Message.storageUnexpectedEnd()) }
        index += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let c = peek(), c != "\n" else { throw fail(start, Message.unterminatedString()) }
            index += 1
            if c == quote { break }
            if c == "\\", !raw {
                guard let e = peek() else { throw fail(start, Message.unterminatedString()) }
                index += 1
                switch e {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "\\", "'", "\"", "/": text.append(e)
                case ".", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "^", "$", "-", "d", "D", "w", "W", "s", "S":
                    // Regular-expression escapes in a pattern string ('.*\.png'), kept as written.
                    text.append("\\")
                    text.append(e)
                case "u":
                    var hex = ""
                    for _ in 0..<4 {
                        guard let h = peek(), h.properties.isASCIIHexDigit else {
                            throw fail(index, Message.badStringEscape("u" + hex))
                        }
                        hex.unicodeScalars.append(h)
                        index += 1
                    }
                    guard let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                        throw fail(index, Message.badStringEscape("u" + hex))
                    }
                    text.append(scalar)
                default: throw fail(index - 1, Message.badStringEscape(String(e)))
                }
                continue
            }
            text.append(c)
        }
        return String(text)
    }

    // MARK: Scanning

    var atEnd: Bool { index >= scalars.count }

    func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        index + ahead < scalars.count ? scalars[index + ahead] : nil
    }

    mutating func skipSpace() {
        while let c = peek() {
            if isSpace(c) {
                index += 1
            } else if c == "/", peek(1) == "/" {
                while let c = peek(), c != "\n" { index += 1 }
            } else if c == "/", peek(1) == "*" {
                index += 2
                while !atEnd, !(peek() == "*" && peek(1) == "/") { index += 1 }
                index = min(scalars.count, index + 2)
            } else {
                return
            }
        }
    }

    /// Consumes `token` after any space when it comes next.
    mutating func consume(_ token: String) -> Bool {
        skipSpace()
        let tokenScalars = Array(token.unicodeScalars)
        guard index + tokenScalars.count <= scalars.count else { return false }
        for (i, c) in tokenScalars.enumerated() where scalars[index + i] != c { return false }
        index += tokenScalars.count
        return true
    }

    mutating func consume(_ scalar: Unicode.Scalar) -> Bool {
        skipSpace()
        guard peek() == scalar else { return false }
        index += 1
        return true
    }

    mutating func expect(_ token: String) throws(Failure) {
        guard consume(token) else {
            throw fail(
                index,
                atEnd ? Message.storageUnexpectedEnd() : Message.storageExpected("'\(token)'", found: found())
            )
        }
    }

    mutating func expect(_ scalar: Unicode.Scalar) throws(Failure) {
        try expect(String(scalar))
    }

    func peekWord() -> String? {
        var i = index
        var text = ""
        while i < scalars.count, isIdentifierPart(scalars[i]) {
            text.unicodeScalars.append(scalars[i])
            i += 1
        }
        return text.isEmpty ? nil : text
    }

    mutating func word() -> String {
        var text = ""
        while let c = peek(), isIdentifierPart(c) {
            text.unicodeScalars.append(c)
            index += 1
        }
        return text
    }

    mutating func identifier() throws(Failure) -> String {
        skipSpace()
        guard let c = peek(), isIdentifierStart(c) else {
            throw fail(index, Message.storageExpected("a name", found: found()))
        }
        return word()
    }

    /// What stands at the cursor, for a message: `'x'` or "the end of the file".
    func found() -> String {
        guard let c = peek() else { return "the end of the file" }
        if let text = peekWord() { return "'\(text)'" }
        return "'\(c)'"
    }

    func fail(_ offset: Int, _ message: String) -> Failure {
        Failure(offset: offset, message: message)
    }

    /// The expression of `kind` written from `start` to the cursor. Parse its parts into locals
    /// first: in `make(.not(try unary()), ...)` Swift reads `self`, and so the cursor, before the
    /// argument moves it, and the text would end where the operand starts.
    func make(_ kind: StorageExpression.Kind, from start: Int) -> StorageExpression {
        let end = max(start, min(index, scalars.count))
        var text = String(String.UnicodeScalarView(scalars[start..<end]))
        while text.last?.isWhitespace == true { text.removeLast() }
        return StorageExpression(kind: kind, position: position(start), text: text)
    }

    func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }
    func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }
    func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c)
    }
    func isIdentifierPart(_ c: Unicode.Scalar) -> Bool { isIdentifierStart(c) || isDigit(c) }
    func isPathCharacter(_ c: Unicode.Scalar) -> Bool {
        isIdentifierPart(c) || c == "-" || c == "." || c == "~" || c == "%" || c == "@" || c == "+" || c == ":"
    }
}
