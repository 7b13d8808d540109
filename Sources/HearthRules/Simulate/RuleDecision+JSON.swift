public import HearthCore

extension RuleDecision {
    /// The decision as the simulator answers it: `{"allowed", "decidedBy", "trace": [...]}`,
    /// each rule with where it ran, where it is written (line, column), its expression and
    /// its outcome.
    public var json: JSONValue {
        .object([
            ("allowed", .bool(allowed)),
            ("decidedBy", decidedBy.map(\.json) ?? .null),
            ("trace", .array(trace.map(\.json))),
        ])
    }
}

extension RuleTraceEntry {
    public var json: JSONValue {
        var outcomeFields: [(String, JSONValue)] = []
        switch outcome {
        case .true: outcomeFields = [("outcome", .bool(true))]
        case .false: outcomeFields = [("outcome", .bool(false))]
        case .error(let message): outcomeFields = [("outcome", .bool(false)), ("error", .string(message))]
        }
        return .object(
            [
                ("rule", .string(rule)), ("kind", .string(kind.rawValue)), ("path", .string(path.description)),
                ("expression", .string(expression)), ("line", .number(Double(position.line))),
                ("column", .number(Double(position.column))),
            ] + outcomeFields
        )
    }
}
