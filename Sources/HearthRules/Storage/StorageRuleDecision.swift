public import HearthCore

/// The answer of the storage rules to one request, with every rule that ran (the simulator's
/// trace; the server only looks at `allowed`).
public struct StorageRuleDecision: Sendable, CustomStringConvertible {
    public var allowed: Bool
    public var trace: [StorageRuleTraceEntry]

    /// The rule that allowed the request; nil when denied.
    public var decidedBy: StorageRuleTraceEntry? { allowed ? trace.last : nil }

    /// `{"allowed", "decidedBy", "trace": [{"match", "rule", "expression", "line", "column",
    /// "bindings", "outcome", "error"?, "value"}]}`
    public var json: JSONValue {
        .object([
            ("allowed", .bool(allowed)),
            ("decidedBy", decidedBy?.json ?? .null),
            ("trace", .array(trace.map(\.json))),
        ])
    }

    public var description: String {
        let lines = trace.map { entry in
            "  \(entry.position) \(entry.rule)\(entry.expression.isEmpty ? "" : ": if \(entry.expression)") in match \(entry.match) -> \(entry.shown)"
        }
        return ([allowed ? "allowed" : "denied"] + lines).joined(separator: "\n")
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

    public var json: JSONValue {
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
        return .object(fields)
    }
}
