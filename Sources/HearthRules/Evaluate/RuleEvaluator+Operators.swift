internal import HearthCore

// Property access and operators of the evaluator, with JavaScript's results where Firebase
// follows them (docs/rules.md, "Semantics").
extension RuleEvaluator {
    // MARK: Members

    func member(_ receiver: RuleValue, _ name: String) -> RuleValue {
        switch receiver {
        case .auth(let auth):
            switch name {
            case "uid": return .string(auth.uid)
            case "provider": return .string(auth.provider)
            case "token": return .json(auth.token)
            default: return .null
            }
        case .json(let json):
            switch json {
            case .object: return json[name].map { RuleValue(json: $0) } ?? .null
            case .array(let elements) where name == "length": return .number(Double(elements.count))
            default: return .null
            }
        case .string(let s):
            if name == "length" { return .number(Double(s.utf16.count)) }
            return .null
        case .null, .number, .bool, .object:
            // As in JavaScript, a property a value does not have is null (never undefined), and
            // so is any property of null: `auth.token.missing.deeper == null` is true.
            return .null
        case .query(let q):
            switch name {
            case "orderByKey": return .bool(q.orderByKey)
            case "orderByPriority": return .bool(q.orderByPriority)
            case "orderByValue": return .bool(q.orderByValue)
            case "orderByChild": return q.orderByChild.map { .string($0) } ?? .null
            case "startAt": return RuleValue(q.startAt)
            case "endAt": return RuleValue(q.endAt)
            case "equalTo": return RuleValue(q.equalTo)
            case "limitToFirst": return q.limitToFirst.map { .number(Double($0)) } ?? .null
            case "limitToLast": return q.limitToLast.map { .number(Double($0)) } ?? .null
            default: return .error(Message.runtimeMember(name, "query"))
            }
        case .error:
            return receiver
        default:
            return .error(Message.runtimeMember(name, receiver.typeName))
        }
    }

    // MARK: Operators

    func binary(_ op: RuleBinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue) -> RuleValue {
        if case .error = lhs { return lhs }
        if case .error = rhs { return rhs }
        switch op {
        case .equal, .notEqual:
            guard let equal = RuleEvaluator.strictEqual(lhs, rhs) else {
                return .error(Message.runtimeType(op.rawValue, lhs.typeName, rhs.typeName))
            }
            return .bool(op == .equal ? equal : !equal)
        case .add:
            // JavaScript's `+` on numbers and strings: a string on either side makes the other
            // one a string (`1 + 2 + 'x'` is '3x'). Null, booleans and objects are errors (what
            // Firebase does for `'users/' + auth.uid` when signed out), not 'null' or 'true'.
            switch (lhs, rhs) {
            case let (.number(a), .number(b)): return .number(a + b)
            case let (.string(a), .string(b)): return .string(a + b)
            case let (.string(a), .number(b)): return .string(a + JavaScriptNumber.string(b))
            case let (.number(a), .string(b)): return .string(JavaScriptNumber.string(a) + b)
            default: return .error(Message.runtimeType("+", lhs.typeName, rhs.typeName))
            }
        case .subtract, .multiply, .divide, .remainder:
            guard case .number(let a) = lhs, case .number(let b) = rhs else {
                return .error(Message.runtimeType(op.rawValue, lhs.typeName, rhs.typeName))
            }
            switch op {
            case .subtract: return .number(a - b)
            case .multiply: return .number(a * b)
            // Firebase answers NaN for a division by zero, not Infinity (observed: `(1/0 + '')
            // == 'NaN'` is true, targaryen test/spec/lib/parser/fixtures.json).
            case .divide: return .number(b == 0 ? .nan : a / b)
            default: return .number(a.truncatingRemainder(dividingBy: b))
            }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let c: Int
            switch (lhs, rhs) {
            case let (.number(a), .number(b)):
                if a.isNaN || b.isNaN { return .bool(false) }
                c = a < b ? -1 : (a > b ? 1 : 0)
            case let (.string(a), .string(b)):
                c = UTF16Order.compare(a, b)
            default:
                return .error(Message.runtimeType(op.rawValue, lhs.typeName, rhs.typeName))
            }
            switch op {
            case .less: return .bool(c < 0)
            case .lessOrEqual: return .bool(c <= 0)
            case .greater: return .bool(c > 0)
            default: return .bool(c >= 0)
            }
        }
    }

    /// `==`/`===`: same type and same value, no coercion. Nil when the operands cannot be
    /// compared (snapshots, regular expressions).
    static func strictEqual(_ lhs: RuleValue, _ rhs: RuleValue) -> Bool? {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a.utf8.count == b.utf8.count && RuleKeys.equal(a, b)
        case (.snapshot, _), (_, .snapshot), (.regex, _), (_, .regex), (.array, _), (_, .array): return nil
        case let (.json(a), .json(b)): return a == b
        case let (.auth(a), .auth(b)): return a == b
        default: return false
        }
    }
}
