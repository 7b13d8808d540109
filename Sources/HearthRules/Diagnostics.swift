// Every message of the rules compiler, in one place (cel-go: checker/errors.go).

/// One problem found in a rules file, at a line and column.
public struct RulesDiagnostic: Hashable, Sendable, CustomStringConvertible {
    public let fileName: String
    public let position: SourcePosition
    public let message: String
    /// The source line the position is on (verbatim).
    public let sourceLine: String

    /// `file:line:col: message`, then the source line and a caret under the column (cel-go style):
    ///
    ///     rules.json:7:15: unknown variable 'auht'; did you mean 'auth'?
    ///      |     ".read": "auht != null",
    ///      | ..............^
    public var rendered: String {
        let caretIndent = String(repeating: ".", count: max(0, position.column - 1))
        return "\(fileName):\(position.line):\(position.column): \(message)\n | \(sourceLine)\n | \(caretIndent)^"
    }

    public var description: String { rendered }
}

/// Every problem found while compiling a rules file, sorted by position.
public struct RulesDiagnostics: Error, Hashable, Sendable, CustomStringConvertible {
    public let diagnostics: [RulesDiagnostic]

    public init(_ diagnostics: [RulesDiagnostic]) {
        var seen = Set<RulesDiagnostic>()
        self.diagnostics = diagnostics.filter { seen.insert($0).inserted }.sorted {
            $0.position != $1.position ? $0.position < $1.position : $0.message < $1.message
        }
    }

    /// Every diagnostic rendered, separated by newlines.
    public var description: String { diagnostics.map(\.rendered).joined(separator: "\n") }

    /// The first diagnostic as one line, `file:line:col: message` (for an HTTP error body).
    public var summary: String {
        guard let first = diagnostics.first else { return "invalid rules" }
        let more = diagnostics.count > 1 ? " (and \(diagnostics.count - 1) more)" : ""
        return "\(first.fileName):\(first.position.line):\(first.position.column): \(first.message)\(more)"
    }
}

/// The message texts. One sentence each, offending value in single quotes.
enum Message {
    // MARK: JSON document

    static func jsonUnexpectedEnd() -> String { "unexpected end of the rules document" }
    static func jsonUnexpected(_ found: String, expected: String) -> String {
        "unexpected \(found); expected \(expected)"
    }
    static func jsonUnterminatedString() -> String { "unterminated string" }
    static func jsonUnterminatedComment() -> String { "unterminated comment" }
    static func jsonBadEscape(_ c: String) -> String { "invalid escape '\\\(c)' in a string" }
    static func jsonControlCharacter() -> String { "control character in a string; escape it" }
    static func jsonBadNumber(_ text: String) -> String { "invalid number '\(text)'" }
    static func jsonTrailing() -> String { "unexpected text after the rules document" }
    static func jsonDuplicateKey(_ key: String) -> String { "duplicate key '\(key)'" }

    // MARK: Document structure

    static func documentNotObject() -> String { "the rules document must be an object with a 'rules' member" }
    static func rulesMissing() -> String { "missing 'rules': the document must be {\"rules\": {...}}" }
    static func unknownTopLevelKey(_ key: String) -> String {
        "unknown key '\(key)' at the top level; only 'rules' is allowed"
    }
    static func locationNotObject(_ key: String, found: String) -> String {
        "rules for '\(key)' must be an object, got \(found)"
    }
    static func unknownRuleKey(_ key: String, suggestion: String?) -> String {
        let base = "unknown rule '\(key)'; expected '.read', '.write', '.validate' or '.indexOn'"
        return suggestion.map { "unknown rule '\(key)'; did you mean '\($0)'?" } ?? base
    }
    static func ruleValueType(_ key: String, found: String) -> String {
        "'\(key)' must be a string expression or a boolean, got \(found)"
    }
    static func invalidKey(_ key: String) -> String {
        "invalid key '\(key)': keys cannot be empty or contain '.', '#', '$', '[', ']', '/' or control characters"
    }
    static func twoWildcards(_ first: String, _ second: String) -> String {
        "two wildcards at the same level: '\(first)' and '\(second)'; only one '$' child is allowed per location"
    }
    static func wildcardShadows(_ name: String) -> String {
        "wildcard '\(name)' is already in scope from an enclosing location"
    }
    static func invalidWildcardName(_ name: String) -> String {
        "invalid wildcard '\(name)': after '$' use letters, digits and '_'"
    }
    static func indexOnType(found: String) -> String {
        "'.indexOn' must be a string or an array of strings, got \(found)"
    }
    static func indexOnEntry(_ entry: String) -> String {
        "invalid '.indexOn' entry '\(entry)': use '.value' or a child path of valid keys"
    }
    static func tooDeep() -> String { "rules nested deeper than 32 levels" }

    // MARK: Expression syntax

    static func emptyExpression() -> String { "empty rule expression" }
    static func expressionTooDeep(_ limit: Int) -> String {
        "expression nested too deeply: at most \(limit) levels of operators, calls and parentheses"
    }
    static func unexpectedCharacter(_ c: String) -> String { "unexpected character '\(c)'" }
    static func unexpectedToken(_ token: String, expected: String) -> String {
        "unexpected \(token); expected \(expected)"
    }
    static func unterminatedString() -> String { "unterminated string literal" }
    static func unterminatedRegex() -> String { "unterminated regular expression literal" }
    static func badStringEscape(_ c: String) -> String { "invalid escape '\\\(c)' in a string literal" }
    static func badNumber(_ text: String) -> String { "invalid number '\(text)'" }
    static func assignment() -> String { "'=' is not an operator in rules; use '==' or '===' to compare" }
    static func bitwise(_ op: String) -> String { "'\(op)' is not supported; use '\(op)\(op)'" }

    // MARK: Regular expressions

    static func regexFlag(_ flag: String) -> String {
        "unsupported regular expression flag '\(flag)'; only 'i' is supported"
    }
    static func regexSyntax(_ detail: String) -> String { "invalid regular expression: \(detail)" }

    // MARK: Checker

    static func unknownVariable(_ name: String, suggestion: String?) -> String {
        suggestion.map { "unknown variable '\(name)'; did you mean '\($0)'?" } ?? "unknown variable '\(name)'"
    }
    static func wildcardOutOfScope(_ name: String, inScope: [String]) -> String {
        let scope =
            inScope.isEmpty
            ? "no wildcards are in scope here" : "in scope: " + inScope.map { "'\($0)'" }.joined(separator: ", ")
        return "wildcard '\(name)' is not in scope at this location (\(scope))"
    }
    static func variableNotAvailable(_ name: String, rule: String, hint: String) -> String {
        "'\(name)' is not available in '\(rule)' rules; \(hint)"
    }
    static func unknownMethod(_ name: String, on type: String, suggestion: String?) -> String {
        let base = "unknown method '\(name)' on \(type)"
        return suggestion.map { "\(base); did you mean '\($0)'?" } ?? base
    }
    static func unknownProperty(_ name: String, on type: String, suggestion: String?) -> String {
        let base = "unknown property '\(name)' on \(type)"
        return suggestion.map { "\(base); did you mean '\($0)'?" } ?? base
    }
    static func methodAsProperty(_ name: String) -> String { "'\(name)' is a method; call it as '\(name)()'" }
    static func propertyAsMethod(_ name: String) -> String { "'\(name)' is a property, not a method; drop the '()'" }
    static func notCallable() -> String { "only methods can be called, as 'receiver.method(...)'" }
    static func argumentCount(_ name: String, expected: String, got: Int) -> String {
        "'\(name)' expects \(expected), got \(got)"
    }
    static func argumentType(_ name: String, index: Int, expected: String, got: String) -> String {
        "argument \(index) of '\(name)' must be \(expected), got \(got)"
    }
    static func operandType(_ op: String, _ lhs: String, _ rhs: String) -> String {
        "operator '\(op)' cannot be applied to \(lhs) and \(rhs)"
    }
    static func unaryOperandType(_ op: String, _ type: String) -> String {
        "operator '\(op)' cannot be applied to \(type)"
    }
    static func conditionType(_ type: String, known: Bool) -> String {
        if known { return "the condition of '?:' must be a boolean, got \(type)" }
        return "the condition of '?:' must be a boolean, got a value that may not be one; "
            + "compare it, e.g. '... == true'"
    }
    static func notBoolean(_ rule: String, type: String, known: Bool, branch: Bool) -> String {
        let must = "'\(rule)' rule must evaluate to a boolean" + (branch ? " on every branch" : "")
        if known { return "\(must), got \(type)" }
        return "\(must), got a value that may not be one; compare it, e.g. '... == true'"
    }
    static func operandNotBoolean(_ op: String, type: String, known: Bool) -> String {
        known
            ? "operand of '\(op)' must be a boolean, got \(type)"
            : "operand of '\(op)' must be a boolean, got a value that may not be one; compare it, e.g. '... == true'"
    }
    static func orderingComparison() -> String {
        "'query.orderByChild' can only be compared with a string literal or null (Firebase refuses a computed path)"
    }
    static func snapshotComparison() -> String {
        "a snapshot cannot be compared; use 'val()' for its value or 'exists()' for its presence"
    }
    static func regexOutsideMatches() -> String { "a regular expression literal can only be an argument of 'matches'" }
    static func arrayOutsideHasChildren() -> String { "an array literal can only be an argument of 'hasChildren'" }
    static func indexNotSupported(_ type: String) -> String { "'[...]' cannot be applied to \(type)" }

    // MARK: Runtime (evaluation errors make a rule false)

    static func runtimeType(_ op: String, _ lhs: String, _ rhs: String) -> String {
        "'\(op)' cannot be applied to \(lhs) and \(rhs)"
    }
    static func runtimeUnary(_ op: String, _ type: String) -> String { "'\(op)' cannot be applied to \(type)" }
    static func runtimeMember(_ name: String, _ type: String) -> String { "no property '\(name)' on \(type)" }
    static func runtimeMethod(_ name: String, _ type: String) -> String { "no method '\(name)' on \(type)" }
    static func runtimeArgument(_ name: String, _ type: String) -> String { "bad argument for '\(name)': \(type)" }
    static func runtimeNotBoolean(_ type: String) -> String { "the rule evaluated to \(type), not a boolean" }
    static func runtimeRootParent() -> String { "'parent()' of the root" }

    // MARK: Test runner

    static func testFile(_ detail: String) -> String { "invalid rules test file: \(detail)" }
}

/// Edit distance, for did-you-mean suggestions.
enum Suggestion {
    static func closest(to name: String, among candidates: [String]) -> String? {
        let lowered = Array(name.lowercased().unicodeScalars)
        var best: (String, Int)?
        for candidate in candidates {
            let d = distance(lowered, Array(candidate.lowercased().unicodeScalars))
            let limit = max(1, min(3, candidate.unicodeScalars.count / 2))
            if d <= limit, best == nil || d < best!.1 { best = (candidate, d) }
        }
        return best?.0
    }

    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
