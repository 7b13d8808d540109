/// Parses a rule expression with JavaScript's precedence:
/// `?:` < `||` < `&&` < `== === != !==` < `< <= > >=` < `+ -` < `* / %` < unary `! -`
/// < member access, calls and indexing.
struct RuleParser {
    /// The deepest expression accepted, in nested operators, calls and parentheses (a chain of
    /// 100 `&&` is 100 deep); deeper is a syntax error, so no recursion over an expression
    /// (parsing it included) goes deeper than this.
    static let maxDepth = 256

    private let tokens: [RuleToken]
    private var position = 0
    /// Parsing calls in progress that nest (`conditional`, `unary`): parentheses and prefix
    /// operators nest the parse without adding nodes.
    private var nesting = 0

    private init(tokens: [RuleToken]) {
        self.tokens = tokens
    }

    /// Parses a whole expression.
    static func parse(_ scalars: [Unicode.Scalar]) throws(RuleSyntaxError) -> RuleSyntax {
        let tokens = try RuleLexer(scalars).tokenize()
        if tokens.count == 1 { throw RuleSyntaxError(offset: 0, message: Message.emptyExpression()) }
        var parser = RuleParser(tokens: tokens)
        let expression = try parser.conditional()
        let next = parser.current
        if next.kind != .end {
            throw RuleSyntaxError(
                offset: next.offset,
                message: Message.unexpectedToken(next.describe, expected: "an operator or the end of the expression")
            )
        }
        return expression
    }

    private var current: RuleToken { tokens[position] }

    /// Where the last token taken ends (the end of the node just parsed).
    private var previousEnd: Int { tokens[position - 1].end }

    private func isPunctuation(_ p: String) -> Bool {
        if case .punctuation(let q) = current.kind { return q == p }
        return false
    }

    private mutating func expect(_ p: String, what: String) throws(RuleSyntaxError) {
        guard isPunctuation(p) else {
            throw RuleSyntaxError(
                offset: current.offset,
                message: Message.unexpectedToken(current.describe, expected: what)
            )
        }
        position += 1
    }

    /// Enters one more level of nesting (the caller leaves it); throws past `maxDepth` (the
    /// whole parse fails, so the count need not be restored).
    private mutating func enter() throws(RuleSyntaxError) {
        nesting += 1
        if nesting > Self.maxDepth { throw tooDeep() }
    }

    /// `syntax`, unless it is deeper than `maxDepth`.
    private func checked(_ syntax: RuleSyntax) throws(RuleSyntaxError) -> RuleSyntax {
        if syntax.depth > Self.maxDepth { throw tooDeep() }
        return syntax
    }

    private func tooDeep() -> RuleSyntaxError {
        RuleSyntaxError(offset: current.offset, message: Message.expressionTooDeep(Self.maxDepth))
    }

    private mutating func conditional() throws(RuleSyntaxError) -> RuleSyntax {
        try enter()
        defer { nesting -= 1 }
        return try conditionalLevel()
    }

    private mutating func conditionalLevel() throws(RuleSyntaxError) -> RuleSyntax {
        let condition = try binary(level: 0)
        guard isPunctuation("?") else { return condition }
        let offset = current.offset
        position += 1
        let then = try conditional()
        try expect(":", what: "':' of the conditional operator")
        let otherwise = try conditional()
        return try checked(
            RuleSyntax(
                kind: .conditional(condition, then, otherwise),
                offset: offset,
                start: condition.start,
                end: otherwise.end
            )
        )
    }

    private static let levels: [[String]] = [
        ["||"], ["&&"], ["==", "===", "!=", "!=="], ["<", "<=", ">", ">="], ["+", "-"], ["*", "/", "%"],
    ]

    private mutating func binary(level: Int) throws(RuleSyntaxError) -> RuleSyntax {
        if level == Self.levels.count { return try unary() }
        var lhs = try binary(level: level + 1)
        while case .punctuation(let p) = current.kind, Self.levels[level].contains(p) {
            let offset = current.offset
            position += 1
            let rhs = try binary(level: level + 1)
            lhs = try checked(RuleSyntax(kind: .binary(p, lhs, rhs), offset: offset, start: lhs.start, end: rhs.end))
        }
        return lhs
    }

    private mutating func unary() throws(RuleSyntaxError) -> RuleSyntax {
        if case .punctuation(let p) = current.kind, p == "!" || p == "-" || p == "+" {
            let offset = current.offset
            position += 1
            try enter()
            let operand = try unary()
            nesting -= 1
            if p == "+" {
                var same = operand
                same.start = offset
                return same
            }
            return try checked(RuleSyntax(kind: .unary(p, operand), offset: offset, start: offset, end: operand.end))
        }
        return try postfix()
    }

    private mutating func postfix() throws(RuleSyntaxError) -> RuleSyntax {
        var expression = try primary()
        while true {
            if isPunctuation(".") {
                position += 1
                guard case .identifier(let name) = current.kind else {
                    throw RuleSyntaxError(
                        offset: current.offset,
                        message: Message.unexpectedToken(
                            current.describe,
                            expected: "a property or method name after '.'"
                        )
                    )
                }
                expression = try checked(
                    RuleSyntax(
                        kind: .member(expression, name: name),
                        offset: current.offset,
                        start: expression.start,
                        end: current.end
                    )
                )
                position += 1
            } else if isPunctuation("(") {
                let offset = expression.offset
                position += 1
                var arguments: [RuleSyntax] = []
                if !isPunctuation(")") {
                    while true {
                        arguments.append(try conditional())
                        if isPunctuation(",") {
                            position += 1
                            continue
                        }
                        break
                    }
                }
                try expect(")", what: "',' or ')'")
                expression = try checked(
                    RuleSyntax(
                        kind: .call(expression, arguments: arguments),
                        offset: offset,
                        start: expression.start,
                        end: previousEnd
                    )
                )
            } else if isPunctuation("[") {
                let offset = current.offset
                position += 1
                let index = try conditional()
                try expect("]", what: "']'")
                // `x['name']` is `x.name`, methods included: Firebase accepts
                // `root['exists']()` but not a computed name (`root[$m]()`).
                let kind: RuleSyntax.Kind
                let nodeOffset: Int
                if case .string(let name) = index.kind {
                    (kind, nodeOffset) = (.member(expression, name: name), index.offset)
                } else {
                    (kind, nodeOffset) = (.index(expression, index), offset)
                }
                expression = try checked(
                    RuleSyntax(kind: kind, offset: nodeOffset, start: expression.start, end: previousEnd)
                )
            } else {
                return expression
            }
        }
    }

    private mutating func primary() throws(RuleSyntaxError) -> RuleSyntax {
        let token = current
        switch token.kind {
        case .number(let n):
            position += 1
            return RuleSyntax(kind: .number(n), token: token)
        case .string(let s):
            position += 1
            return RuleSyntax(kind: .string(s), token: token)
        case .regex(let pattern, let flags, let flagsOffset):
            position += 1
            for (i, flag) in flags.enumerated() where flag != "i" || flags.prefix(i).contains("i") {
                throw RuleSyntaxError(offset: flagsOffset + i, message: Message.regexFlag(String(flag)))
            }
            return RuleSyntax(kind: .regex(pattern: pattern, flags: flags), token: token)
        case .identifier(let name):
            position += 1
            switch name {
            case "true": return RuleSyntax(kind: .bool(true), token: token)
            case "false": return RuleSyntax(kind: .bool(false), token: token)
            case "null": return RuleSyntax(kind: .null, token: token)
            default: return RuleSyntax(kind: .identifier(name), token: token)
            }
        case .punctuation("("):
            position += 1
            var inner = try conditional()
            try expect(")", what: "')'")
            // The parentheses belong to the node's text: `!(a || b)` ends with the `)`.
            inner.start = token.offset
            inner.end = previousEnd
            return inner
        case .punctuation("["):
            position += 1
            var elements: [RuleSyntax] = []
            if !isPunctuation("]") {
                while true {
                    elements.append(try conditional())
                    if isPunctuation(",") {
                        position += 1
                        continue
                    }
                    break
                }
            }
            try expect("]", what: "',' or ']'")
            return try checked(
                RuleSyntax(kind: .array(elements), offset: token.offset, start: token.offset, end: previousEnd)
            )
        default:
            throw RuleSyntaxError(
                offset: token.offset,
                message: Message.unexpectedToken(token.describe, expected: "a value")
            )
        }
    }
}
