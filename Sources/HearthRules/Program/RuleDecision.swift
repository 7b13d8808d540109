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

    public init(allowed: Bool, trace: [RuleTraceEntry] = [], decidedBy: RuleTraceEntry? = nil) {
        self.allowed = allowed
        self.trace = trace
        self.decidedBy = decidedBy
    }

    public var description: String {
        var lines = [allowed ? "allowed" : "denied"]
        if let decidedBy { lines[0] += " by \(decidedBy)" } else if !allowed { lines[0] += ": no rule granted access" }
        lines += trace.map { "  \($0)" }
        return lines.joined(separator: "\n")
    }
}
