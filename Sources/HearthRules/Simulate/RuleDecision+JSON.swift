public import HearthCore

extension RuleDecision {
    /// The decision as the simulator answers it: `{"allowed", "decidedBy", "trace": [...],
    /// "evaluationTruncated"}`, each rule with where it ran, where it is written (line, column),
    /// its expression, its outcome and (`evaluation`) the value of every part of it. `decidedBy`
    /// is the deciding entry without its `evaluation` (the same entry in `trace` has it).
    public var json: JSONValue {
        .object([
            ("allowed", .bool(allowed)),
            ("decidedBy", decidedBy.map { $0.json(withEvaluation: false) } ?? .null),
            ("trace", .array(trace.map(\.json))),
            ("evaluationTruncated", .bool(evaluationTruncated)),
        ])
    }
}

extension RuleTraceEntry {
    public var json: JSONValue { json(withEvaluation: true) }

    func json(withEvaluation: Bool) -> JSONValue {
        var outcomeFields: [(String, JSONValue)] = []
        switch outcome {
        case .true: outcomeFields = [("outcome", .bool(true))]
        case .false: outcomeFields = [("outcome", .bool(false))]
        case .error(let message): outcomeFields = [("outcome", .bool(false)), ("error", .string(message))]
        }
        if withEvaluation, let evaluation { outcomeFields.append(("evaluation", evaluation.json)) }
        return .object(
            [
                ("rule", .string(rule)), ("kind", .string(kind.rawValue)), ("path", .string(path.description)),
                ("expression", .string(expression)), ("line", .number(Double(position.line))),
                ("column", .number(Double(position.column))),
            ] + outcomeFields
        )
    }
}

extension RuleSubexpression {
    /// `{"text", "line", "column", "evaluated", "type", "shown", "value"?, "error"?, "children"}`:
    /// `value` is the JSON of a data value (null, boolean, number, string, object, array); a
    /// snapshot has `path` and `afterWrite`; an error has `error`; a part never evaluated has
    /// `evaluated` false and the type "not evaluated".
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("text", .string(text)), ("line", .number(Double(position.line))),
            ("column", .number(Double(position.column))), ("evaluated", .bool(value != .notEvaluated)),
            ("type", .string(value.typeName)),
            ("shown", .string(value.shown)),
        ]
        switch value {
        case .data(let json), .typed(_, let json): fields.append(("value", json))
        case .snapshot(let path, let afterWrite):
            fields += [("path", .string(path.description)), ("afterWrite", .bool(afterWrite))]
        case .error(let message): fields.append(("error", .string(message)))
        case .notEvaluated, .nodeWithChildren, .regex: break
        }
        fields.append(("children", .array(children.map(\.json))))
        return .object(fields)
    }
}
