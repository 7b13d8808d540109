/// The parsed form of one rule expression, before checking. `offset` is the index of the
/// node's Unicode scalar in the expression (operators: the operator; calls: the method name);
/// `start..<end` is the node's whole text (a parenthesised expression with its parentheses).
struct RuleSyntax {
    indirect enum Kind {
        case number(Double)
        case string(String)
        case bool(Bool)
        case null
        case regex(pattern: String, flags: String)
        case identifier(String)
        case member(RuleSyntax, name: String)
        case index(RuleSyntax, RuleSyntax)
        case call(RuleSyntax, arguments: [RuleSyntax])
        case unary(String, RuleSyntax)
        case binary(String, RuleSyntax, RuleSyntax)
        case conditional(RuleSyntax, RuleSyntax, RuleSyntax)
        case array([RuleSyntax])
    }

    var kind: Kind
    var offset: Int
    var start: Int
    var end: Int
    /// Levels of nodes from this one to its deepest leaf (a leaf is 1). The parser refuses an
    /// expression deeper than `RuleParser.maxDepth`: checking, optimizing and evaluating an
    /// expression recurse on its tree, and a tree as deep as a long rules file allows would
    /// overflow a thread's stack.
    let depth: Int

    init(kind: Kind, offset: Int, start: Int, end: Int) {
        self.kind = kind
        self.offset = offset
        self.start = start
        self.end = end
        self.depth = 1 + Self.deepestChild(kind)
    }

    private static func deepestChild(_ kind: Kind) -> Int {
        switch kind {
        case .number, .string, .bool, .null, .regex, .identifier: return 0
        case .member(let operand, _), .unary(_, let operand): return operand.depth
        case .index(let lhs, let rhs), .binary(_, let lhs, let rhs): return max(lhs.depth, rhs.depth)
        case .call(let callee, let arguments): return arguments.reduce(callee.depth) { max($0, $1.depth) }
        case .conditional(let a, let b, let c): return max(a.depth, b.depth, c.depth)
        case .array(let elements): return elements.reduce(0) { max($0, $1.depth) }
        }
    }

    /// A node that is one token.
    init(kind: Kind, token: RuleToken) {
        self.init(kind: kind, offset: token.offset, start: token.offset, end: token.end)
    }
}

/// One token of a rule expression.
struct RuleToken {
    enum Kind: Equatable {
        case number(Double)
        case string(String)
        case regex(pattern: String, flags: String, flagsOffset: Int)
        case identifier(String)
        case punctuation(String)
        case end
    }

    var kind: Kind
    var offset: Int
    /// The offset just past the token's last scalar.
    var end: Int

    var describe: String {
        switch kind {
        case .number: return "number"
        case .string: return "string literal"
        case .regex: return "regular expression"
        case .identifier(let name): return "'\(name)'"
        case .punctuation(let p): return "'\(p)'"
        case .end: return "end of expression"
        }
    }
}

/// A syntax error in an expression, at a scalar offset.
struct RuleSyntaxError: Error {
    var offset: Int
    var message: String
}
