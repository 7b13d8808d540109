public import HearthCore

/// The answer of the storage rules to one request, with every rule that ran (the simulator's
/// trace; the server only looks at `allowed`).
public struct StorageRuleDecision: Sendable, CustomStringConvertible {
    public var allowed: Bool
    public var trace: [StorageRuleTraceEntry]
    /// True when the simulator left out the evaluation of some conditions (it records at most
    /// `RuleSubexpression.limitPerSimulation` parts).
    public var evaluationTruncated: Bool

    public init(allowed: Bool, trace: [StorageRuleTraceEntry], evaluationTruncated: Bool = false) {
        self.allowed = allowed
        self.trace = trace
        self.evaluationTruncated = evaluationTruncated
    }

    /// The rule that allowed the request; nil when denied.
    public var decidedBy: StorageRuleTraceEntry? { allowed ? trace.last : nil }

    /// `{"allowed", "decidedBy", "trace": [{"match", "rule", "expression", "line", "column",
    /// "bindings", "outcome", "error"?, "value", "evaluation"?}], "evaluationTruncated"}`:
    /// `evaluation` (simulations only) is the tree of every part of the condition with its value,
    /// as the database rules' simulator gives it; `decidedBy` is the deciding entry without it.
    public var json: JSONValue {
        .object([
            ("allowed", .bool(allowed)),
            ("decidedBy", decidedBy?.json(withEvaluation: false) ?? .null),
            ("trace", .array(trace.map(\.json))),
            ("evaluationTruncated", .bool(evaluationTruncated)),
        ])
    }

    public var description: String {
        var lines = [allowed ? "allowed" : "denied"]
        for entry in trace {
            lines.append(
                "  \(entry.position) \(entry.rule)\(entry.expression.isEmpty ? "" : ": if \(entry.expression)") in match \(entry.match) -> \(entry.shown)"
            )
            entry.evaluation?.appendLines(to: &lines, indent: "      ")
        }
        return lines.joined(separator: "\n")
    }
}

/// One `allow` that ran: where it is, the match it is in and its wildcards' values, and what
/// its condition came to.
public struct StorageRuleTraceEntry: Sendable {
    public enum Outcome: Sendable, Equatable {
        case allowed
        case denied
        case error(String)
    }

    /// The full match path, `/b/{bucket}/o/users/{uid}/{file=**}`.
    public var match: String
    /// `allow read, write`
    public var rule: String
    /// The condition as written; empty for an `allow` without one.
    public var expression: String
    public var position: SourcePosition
    public var bindings: [(name: String, value: String)]
    public var outcome: Outcome
    /// What the condition evaluated to (shown), e.g. `false` or `error: ...`.
    public var shown: String
    /// The simulator's record: every part of the condition with its value (nil outside a
    /// simulation, for an `allow` without a condition, or past the recording's limit).
    public var evaluation: RuleSubexpression?

    public init(
        match: String,
        rule: String,
        expression: String,
        position: SourcePosition,
        bindings: [(name: String, value: String)],
        outcome: Outcome,
        shown: String,
        evaluation: RuleSubexpression? = nil
    ) {
        self.match = match
        self.rule = rule
        self.expression = expression
        self.position = position
        self.bindings = bindings
        self.outcome = outcome
        self.shown = shown
        self.evaluation = evaluation
    }

    public var json: JSONValue { json(withEvaluation: true) }

    func json(withEvaluation: Bool) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("match", .string(match)), ("rule", .string(rule)), ("expression", .string(expression)),
            ("line", .number(Double(position.line))), ("column", .number(Double(position.column))),
            ("bindings", .object(bindings.map { ($0.name, .string($0.value)) })),
        ]
        switch outcome {
        case .allowed: fields.append(("outcome", .bool(true)))
        case .denied: fields.append(("outcome", .bool(false)))
        case .error(let message): fields += [("outcome", .bool(false)), ("error", .string(message))]
        }
        fields.append(("value", .string(shown)))
        if withEvaluation, let evaluation { fields.append(("evaluation", evaluation.json)) }
        return .object(fields)
    }
}
