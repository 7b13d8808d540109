internal import HearthCore

extension RuleSubexpression {
    /// The tree of the evaluation of `rule.traced` that `recorder` has just recorded; nil when
    /// the rule has no part to show (a literal).
    static func tree(of rule: CompiledRule, recorder: RuleValueRecorder) -> RuleSubexpression? {
        let scalars = Array(rule.source.unicodeScalars)
        func nodes(_ expression: RuleExpression) -> [RuleSubexpression] {
            guard case .recorded(let inner, let span) = expression else {
                return expression.operands.flatMap(nodes)
            }
            let start = min(span.start, scalars.count)
            let end = min(max(span.end, start), scalars.count)
            var text = String(String.UnicodeScalarView(scalars[start..<end]))
            if end - start > maxTextLength {
                text = String(String.UnicodeScalarView(scalars[start..<(start + maxTextLength)])) + "…"
            }
            return [
                RuleSubexpression(
                    text: text,
                    position: rule.sourceMap.position(start) ?? rule.position,
                    value: recorder.value(at: span).map(Value.init) ?? .notEvaluated,
                    children: inner.operands.flatMap(nodes)
                )
            ]
        }
        return nodes(rule.traced).first
    }

    /// How many parts of `expression` are recorded.
    static func count(_ expression: RuleExpression) -> Int {
        let own: Int
        if case .recorded = expression { own = 1 } else { own = 0 }
        return expression.operands.reduce(own) { $0 + count($1) }
    }
}

extension RuleSubexpression.Value {
    init(_ value: RuleValue) {
        switch value {
        case .null: self = .data(.null)
        case .bool(let b): self = .data(.bool(b))
        case .number(let n): self = .data(.number(n))
        case .string(let s): self = .data(.string(Self.shortened(s)))
        case .object: self = .nodeWithChildren
        case .snapshot(let snapshot): self = .snapshot(snapshot.path, afterWrite: snapshot.source == .new)
        case .auth(let auth):
            self = .data(
                .object([
                    ("uid", .string(Self.shortened(auth.uid))), ("provider", .string(Self.shortened(auth.provider))),
                    ("token", Self.shortened(auth.token)),
                ])
            )
        case .json(let json): self = .data(Self.shortened(json))
        case .query(let query): self = .data(Self.json(query))
        case .regex(let regex): self = .regex(regex.description)
        case .array(let elements):
            self = .data(
                .array(
                    elements.map { element in
                        if case .data(let json) = Self(element) { return json }
                        return .string(Self(element).shown)
                    }
                )
            )
        case .error(let message): self = .error(message)
        }
    }

    private static func shortened(_ s: String) -> String {
        guard s.count > RuleSubexpression.maxStringLength else { return s }
        return String(s.prefix(RuleSubexpression.maxStringLength)) + "…"
    }

    static func shortened(_ json: JSONValue) -> JSONValue {
        switch json {
        case .null, .bool, .number: return json
        case .string(let s): return .string(shortened(s))
        case .array(let elements): return .array(elements.map(shortened))
        case .object(let members): return .object(members.map { ($0.0, shortened($0.1)) })
        }
    }

    /// The `query` variable as the members set on it.
    private static func json(_ query: RuleQuery) -> JSONValue {
        func leaf(_ value: LeafValue) -> JSONValue {
            switch value {
            case .bool(let b): return .bool(b)
            case .number(let n): return .number(n)
            case .string(let s): return .string(shortened(s))
            }
        }
        var members: [(String, JSONValue)] = []
        if query.orderByKey { members.append(("orderByKey", .bool(true))) }
        if query.orderByPriority { members.append(("orderByPriority", .bool(true))) }
        if query.orderByValue { members.append(("orderByValue", .bool(true))) }
        if let child = query.orderByChild { members.append(("orderByChild", .string(shortened(child)))) }
        if let v = query.startAt { members.append(("startAt", leaf(v))) }
        if let v = query.endAt { members.append(("endAt", leaf(v))) }
        if let v = query.equalTo { members.append(("equalTo", leaf(v))) }
        if let n = query.limitToFirst { members.append(("limitToFirst", .number(Double(n)))) }
        if let n = query.limitToLast { members.append(("limitToLast", .number(Double(n)))) }
        return .object(members)
    }
}

extension RuleExpression {
    /// The expressions this one is made of, in the order they are evaluated.
    var operands: [RuleExpression] {
        switch self {
        case .constant, .variable, .authIsNull, .authMember: return []
        case .member(let receiver, _), .childPath(let receiver, _, _), .hasChildrenPaths(let receiver, _):
            return [receiver]
        case .index(let receiver, let index): return [receiver, index]
        case .call(let receiver, _, let arguments): return [receiver] + arguments
        case .childChain(let receiver, let segments): return [receiver] + segments.compactMap(\.expression)
        case .snapshotCall(_, let segments, _, _): return segments.compactMap(\.expression)
        case .not(let operand), .negate(let operand): return [operand]
        case .binary(_, let lhs, let rhs), .and(let lhs, let rhs), .or(let lhs, let rhs): return [lhs, rhs]
        case .conditional(let condition, let then, let otherwise): return [condition, then, otherwise]
        case .array(let elements): return elements
        case .recorded(let inner, _): return [inner]
        }
    }
}

extension RuleChildSegment {
    /// The computed path, if this segment is one.
    fileprivate var expression: RuleExpression? {
        if case .expression(let e) = self { return e }
        return nil
    }
}
