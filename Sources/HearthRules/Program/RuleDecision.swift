public import HearthCore

/// The result of one rule: true, false, or an evaluation error (which denies like false).
public enum RuleOutcome: Hashable, Sendable, CustomStringConvertible {
    case `true`
    case `false`
    case error(String)

    public var description: String {
        switch self {
        case .true: return "true"
        case .false: return "false"
        case .error(let message): return "error: \(message)"
        }
    }
}

/// One rule evaluated during a decision, for `hearth rules test` and debugging.
public struct RuleTraceEntry: Hashable, Sendable, CustomStringConvertible {
    public let kind: RuleKind
    /// The data location the rule ran at (`/users/alice`).
    public let path: DataPath
    /// The rule's place in the document (`/rules/users/$uid/.write`).
    public let rule: String
    /// The expression as written.
    public let expression: String
    public let position: SourcePosition
    public let outcome: RuleOutcome
    /// The simulator's record of the evaluation: every part of the expression with its value
    /// (nil outside the simulator, for a rule written as `true`/`false`, and past the
    /// simulation's limit).
    public var evaluation: RuleSubexpression? { evaluationBox?.value }
    /// Boxed, so that an entry stays small: every decision returns its deciding entry by value,
    /// and an inline tree made each copy a `memmove` (about 10 % of a read decision).
    private let evaluationBox: RuleSubexpressionBox?

    init(
        kind: RuleKind,
        path: DataPath,
        rule: String,
        expression: String,
        position: SourcePosition,
        outcome: RuleOutcome,
        evaluation: RuleSubexpression? = nil
    ) {
        self.kind = kind
        self.path = path
        self.rule = rule
        self.expression = expression
        self.position = position
        self.outcome = outcome
        evaluationBox = evaluation.map(RuleSubexpressionBox.init)
    }

    public var description: String {
        "\(rule) at \(path) [\(position)] \"\(expression)\" => \(outcome)"
    }
}

/// Whether an operation is allowed, and (when asked for) every rule that ran.
public struct RuleDecision: Hashable, Sendable, CustomStringConvertible {
    public let allowed: Bool
    /// Every rule evaluated, in order; empty unless tracing was requested.
    public let trace: [RuleTraceEntry]
    /// With tracing: the rule that granted access, or the `.write`/`.validate` that refused it
    /// (nil when no `.read`/`.write` rule granted access at all).
    public let decidedBy: RuleTraceEntry?
    /// True when the simulator left out the `evaluation` of some rules: a simulation records
    /// at most `RuleSubexpression.limitPerSimulation` values.
    public let evaluationTruncated: Bool

    public init(
        allowed: Bool,
        trace: [RuleTraceEntry] = [],
        decidedBy: RuleTraceEntry? = nil,
        evaluationTruncated: Bool = false
    ) {
        self.allowed = allowed
        self.trace = trace
        self.decidedBy = decidedBy
        self.evaluationTruncated = evaluationTruncated
    }

    /// The decision, then each rule that ran; under each, when recorded, the value of every part
    /// of its expression as an indented tree.
    public var description: String {
        var lines = [allowed ? "allowed" : "denied"]
        if let decidedBy { lines[0] += " by \(decidedBy)" } else if !allowed { lines[0] += ": no rule granted access" }
        for entry in trace {
            lines.append("  \(entry)")
            entry.evaluation?.appendLines(to: &lines, indent: "      ")
        }
        if evaluationTruncated {
            lines.append(
                "  (values of some rules left out: at most \(RuleSubexpression.limitPerSimulation) per simulation)"
            )
        }
        return lines.joined(separator: "\n")
    }
}

/// A `RuleSubexpression` behind a reference (see `RuleTraceEntry.evaluation`).
final class RuleSubexpressionBox: Hashable, Sendable {
    let value: RuleSubexpression

    init(_ value: RuleSubexpression) {
        self.value = value
    }

    static func == (lhs: RuleSubexpressionBox, rhs: RuleSubexpressionBox) -> Bool {
        lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
