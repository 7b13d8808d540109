internal import HearthCore

/// Which rule an expression belongs to; decides the variables in scope.
public enum RuleKind: String, Sendable, Hashable {
    case read = ".read"
    case write = ".write"
    case validate = ".validate"
}

/// Type-checks one parsed expression and compiles it, collecting diagnostics (cel-go:
/// checker/checker.go). Every problem is reported; after one, the subexpression's type is
/// `.unknown` so it causes no further messages.
struct RuleChecker {
    let kind: RuleKind
    /// The `$wildcard` names in scope, outermost first.
    let wildcards: [String]
    /// Reports a diagnostic at a scalar offset of the expression.
    var report: (Int, String) -> Void

    static let variables = ["auth", "root", "data", "newData", "now", "query"]

    func check(rule syntax: RuleSyntax) -> RuleExpression {
        let (expression, type) = check(syntax)
        requireBooleanRule(syntax, type)
        return expression
    }

    /// The expression of one node (`check(_:)` marks it for the simulator).
    func checkNode(_ syntax: RuleSyntax) -> (RuleExpression, RuleType) {
        switch syntax.kind {
        case .number(let n): return (.constant(.number(n)), .number)
        case .string(let s): return (.constant(.string(s)), .string)
        case .bool(let b): return (.constant(.bool(b)), .boolean)
        case .null: return (.constant(.null), .null)
        case .regex:
            report(syntax.offset, Message.regexOutsideMatches())
            return (.constant(.error("regex")), .unknown)
        case .array:
            report(syntax.offset, Message.arrayOutsideHasChildren())
            return (.constant(.error("array")), .unknown)
        case .identifier(let name):
            return variable(name, at: syntax.offset)
        case .member(let receiver, let name):
            return member(receiver, name, at: syntax.offset)
        case .index(let receiver, let index):
            let (r, rt) = check(receiver)
            let (i, it) = check(index)
            switch rt {
            case .auth, .map, .dynamic, .unknown:
                if it.isKnown && it != .string && it != .number {
                    report(index.offset, Message.indexNotSupported(it.name))
                    return (.constant(.error("index")), .unknown)
                }
                return (.index(r, i), rt == .auth ? .dynamic : (rt == .unknown ? .unknown : .dynamic))
            default:
                report(syntax.offset, Message.indexNotSupported(rt.name))
                return (.constant(.error("index")), .unknown)
            }
        case .call(let callee, let arguments):
            return call(callee, arguments, at: syntax.offset)
        case .unary(let op, let operand):
            let (e, t) = check(operand)
            if op == "!" {
                if t.isKnown && t != .boolean {
                    report(syntax.offset, Message.unaryOperandType("!", t.name))
                    return (.constant(.error("!")), .unknown)
                }
                // Firebase refuses `!` on what may not be a boolean (`!data.child('x').val()`).
                if !requireBoolean(operand, t, of: "!") { return (.constant(.error("!")), .unknown) }
                return (.not(e), .boolean)
            }
            if t.isKnown && t != .number {
                report(syntax.offset, Message.unaryOperandType("-", t.name))
                return (.constant(.error("-")), .unknown)
            }
            return (.negate(e), .number)
        case .binary(let op, let lhs, let rhs):
            return binary(op, lhs, rhs, at: syntax.offset)
        case .conditional(let condition, let then, let otherwise):
            let (c, ct) = check(condition)
            let (a, at) = check(then)
            let (b, bt) = check(otherwise)
            // Firebase also refuses a condition that may not be a boolean (`data.val() ? a : b`).
            if ct != .boolean && ct != .unknown {
                report(Self.start(of: condition), Message.conditionType(ct.name, known: ct.isKnown))
            }
            let type: RuleType = at == bt ? at : (at == .unknown || bt == .unknown ? .unknown : .dynamic)
            return (.conditional(c, a, b), type)
        }
    }

    private func variable(_ name: String, at offset: Int) -> (RuleExpression, RuleType) {
        if name.hasPrefix("$") {
            if let index = wildcards.lastIndex(of: name) {
                return (.variable(.wildcard(index)), .string)
            }
            report(offset, Message.wildcardOutOfScope(name, inScope: wildcards))
            return (.constant(.error(name)), .unknown)
        }
        switch name {
        case "auth": return (.variable(.auth), .auth)
        case "root": return (.variable(.root), .snapshot)
        case "data": return (.variable(.data), .snapshot)
        case "now": return (.variable(.now), .number)
        case "newData":
            if kind == .read {
                report(
                    offset,
                    Message.variableNotAvailable(name, rule: ".read", hint: "use 'data' for the current value")
                )
                return (.constant(.error(name)), .unknown)
            }
            return (.variable(.newData), .snapshot)
        case "query":
            if kind != .read {
                report(
                    offset,
                    Message.variableNotAvailable(name, rule: kind.rawValue, hint: "it describes the query of a read")
                )
                return (.constant(.error(name)), .unknown)
            }
            return (.variable(.query), .query)
        default:
            let candidates = Self.variables + wildcards
            report(offset, Message.unknownVariable(name, suggestion: Suggestion.closest(to: name, among: candidates)))
            return (.constant(.error(name)), .unknown)
        }
    }

    static let queryMembers = [
        "orderByKey", "orderByPriority", "orderByValue", "orderByChild", "startAt", "endAt", "equalTo",
        "limitToFirst", "limitToLast",
    ]

    private func member(_ receiver: RuleSyntax, _ name: String, at offset: Int) -> (RuleExpression, RuleType) {
        let (r, rt) = check(receiver)
        let methodNames = RuleMethod.allCases.map(\.rawValue)
        func unknown(_ candidates: [String]) -> (RuleExpression, RuleType) {
            if methodNames.contains(name) {
                report(offset, Message.methodAsProperty(name))
            } else {
                report(
                    offset,
                    Message.unknownProperty(
                        name,
                        on: rt.name,
                        suggestion: Suggestion.closest(to: name, among: candidates)
                    )
                )
            }
            return (.constant(.error(name)), .unknown)
        }
        switch rt {
        case .auth:
            // Firebase accepts any property of auth at deploy (`auth.someClaim`); other than
            // these three it is null at run time.
            switch name {
            case "uid", "provider": return (.member(r, name), .string)
            case "token": return (.member(r, name), .map)
            default: return (.member(r, name), .dynamic)
            }
        case .query:
            switch name {
            case "orderByKey", "orderByPriority", "orderByValue": return (.member(r, name), .boolean)
            case _ where Self.queryMembers.contains(name): return (.member(r, name), .dynamic)
            default: return unknown(Self.queryMembers)
            }
        case .map, .dynamic:
            return (.member(r, name), .dynamic)
        case .unknown:
            return (.member(r, name), .unknown)
        case .string, .primitive:
            if name == "length" { return (.member(r, name), .number) }
            return unknown(["length"])
        case .snapshot:
            return unknown(RuleMethod.snapshotMethods.map(\.rawValue))
        default:
            return unknown([])
        }
    }

    private func call(_ callee: RuleSyntax, _ arguments: [RuleSyntax], at offset: Int) -> (RuleExpression, RuleType) {
        guard case .member(let receiver, let name) = callee.kind else {
            if case .identifier(let name) = callee.kind, !name.hasPrefix("$"),
                !Self.variables.contains(name)
            {
                report(callee.offset, Message.unknownMethod(name, on: "the global scope", suggestion: nil))
            } else {
                report(callee.offset, Message.notCallable())
            }
            return (.constant(.error("call")), .unknown)
        }
        let (r, rt) = check(receiver)
        let nameOffset = callee.offset
        let candidates: [RuleMethod]
        switch rt {
        case .snapshot: candidates = RuleMethod.snapshotMethods
        // auth and its token may be called string methods at deploy (an error at run time).
        case .string, .primitive, .dynamic, .auth, .map: candidates = RuleMethod.stringMethods
        case .unknown: candidates = RuleMethod.allCases
        default: candidates = []
        }
        guard let method = candidates.first(where: { $0.rawValue == name }) else {
            if rt == .unknown {
                report(
                    nameOffset,
                    Message.unknownMethod(
                        name,
                        on: "a value",
                        suggestion: Suggestion.closest(to: name, among: RuleMethod.allCases.map(\.rawValue))
                    )
                )
            } else if name == "length" && rt != .snapshot {
                report(nameOffset, Message.propertyAsMethod(name))
            } else {
                report(
                    nameOffset,
                    Message.unknownMethod(
                        name,
                        on: rt.name,
                        suggestion: Suggestion.closest(to: name, among: candidates.map(\.rawValue))
                    )
                )
            }
            return (.constant(.error(name)), .unknown)
        }
        guard method.arity.contains(arguments.count) else {
            report(nameOffset, Message.argumentCount(name, expected: method.arityDescription, got: arguments.count))
            return (.constant(.error(name)), .unknown)
        }
        var compiled: [RuleExpression] = []
        var failed = false
        for (i, argument) in arguments.enumerated() {
            switch method {
            case .matches:
                guard case .regex(let pattern, let flags) = argument.kind else {
                    let (_, t) = check(argument)
                    if t != .unknown {
                        report(
                            argument.offset,
                            Message.argumentType(
                                name,
                                index: 1,
                                expected: "a regular expression literal such as /^[a-z]+$/",
                                got: t.name
                            )
                        )
                    }
                    failed = true
                    continue
                }
                do {
                    let regex = try RuleRegex(pattern: pattern, ignoreCase: flags.contains("i"))
                    compiled.append(.constant(.regex(regex)))
                } catch {
                    report(argument.offset + 1 + error.offset, Message.regexSyntax(error.detail))
                    failed = true
                }
            case .hasChildren:
                guard case .array(let elements) = argument.kind else {
                    let (_, t) = check(argument)
                    if t != .unknown {
                        report(
                            argument.offset,
                            Message.argumentType(
                                name,
                                index: 1,
                                expected: "an array of child names such as ['name', 'age']",
                                got: t.name
                            )
                        )
                    }
                    failed = true
                    continue
                }
                var items: [RuleExpression] = []
                for element in elements {
                    let (e, t) = check(element)
                    if t.isKnown && t != .string {
                        report(
                            element.offset,
                            Message.argumentType(
                                name,
                                index: 1,
                                expected: "an array of strings",
                                got: "an array containing \(t.name)"
                            )
                        )
                        failed = true
                    }
                    items.append(e)
                }
                compiled.append(.array(items))
            default:
                let (e, t) = check(argument)
                if t.isKnown && t != .string {
                    report(argument.offset, Message.argumentType(name, index: i + 1, expected: "a string", got: t.name))
                    failed = true
                }
                compiled.append(e)
            }
        }
        if failed { return (.constant(.error(name)), .unknown) }
        // Literal paths are split and validated once, here. A path with a key no data can have
        // ('a.b') is accepted, as Firebase does, and left to run time, where it finds nothing.
        func literalPath(_ syntax: RuleSyntax) -> [ChildKey]? {
            guard case .string(let text) = syntax.kind else { return nil }
            let keys = text.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            guard keys.allSatisfy({ KeyValidator.problem($0) == nil }) else { return nil }
            return keys.map(ChildKey.init)
        }
        switch method {
        case .child, .hasChild:
            if let keys = literalPath(arguments[0]) {
                return (.childPath(r, keys, method), method == .child ? .snapshot : .boolean)
            }
        case .hasChildren:
            if let argument = arguments.first, case .array(let elements) = argument.kind {
                let paths = elements.compactMap(literalPath)
                if paths.count == elements.count { return (.hasChildrenPaths(r, paths), .boolean) }
            }
        default:
            break
        }
        let result: RuleType
        switch method {
        case .val: result = .primitive
        case .child, .parent: result = .snapshot
        case .getPriority: result = .dynamic
        case .replace, .toLowerCase, .toUpperCase: result = .string
        default: result = .boolean
        }
        return (.call(r, method, compiled), result)
    }

    private func binary(
        _ op: String,
        _ lhs: RuleSyntax,
        _ rhs: RuleSyntax,
        at offset: Int
    ) -> (RuleExpression, RuleType) {
        let (l, lt) = check(lhs)
        let (r, rt) = check(rhs)
        let failed: (RuleExpression, RuleType) = (.constant(.error(op)), .unknown)
        if lt == .unknown || rt == .unknown {
            return failed
        }
        func mismatch() -> (RuleExpression, RuleType) {
            report(offset, Message.operandType(op, lt.name, rt.name))
            return failed
        }
        switch op {
        case "&&", "||":
            if (lt.isKnown && lt != .boolean) || (rt.isKnown && rt != .boolean) { return mismatch() }
            // Both sides must be known booleans: Firebase refuses `auth.token.admin && ...`.
            let left = requireBoolean(lhs, lt, of: op)
            let right = requireBoolean(rhs, rt, of: op)
            if !left || !right { return failed }
            return (op == "&&" ? .and(l, r) : .or(l, r), .boolean)
        case "==", "===", "!=", "!==":
            if lt == .snapshot || rt == .snapshot {
                report(offset, Message.snapshotComparison())
                return failed
            }
            // Firebase compares `query.orderByChild` (an ordering) only with a string literal, null
            // or another ordering: "right operand must be an ordering or string literal when
            // comparing against an ordering" (firebase/firebase-tools#944).
            for (ordering, other) in [(lhs, rhs), (rhs, lhs)] where Self.isOrdering(ordering) {
                switch other.kind {
                case .string, .null: continue
                case _ where Self.isOrdering(other): continue
                default:
                    report(Self.start(of: other), Message.orderingComparison())
                    return failed
                }
            }
            let equal = op == "==" || op == "==="
            return (.binary(equal ? .equal : .notEqual, l, r), .boolean)
        case "<", "<=", ">", ">=":
            let ok = (lt.maybeNumber && rt.maybeNumber) || (lt.maybeString && rt.maybeString)
            if !ok { return mismatch() }
            return (.binary(RuleBinaryOperator(rawValue: op)!, l, r), .boolean)
        case "+":
            // JavaScript's `+` on numbers and strings, mixed too (`'v' + 2` is 'v2'); null,
            // booleans and the rest are refused, as Firebase does.
            let ok = (lt.maybeNumber || lt.maybeString) && (rt.maybeNumber || rt.maybeString)
            if !ok { return mismatch() }
            let type: RuleType =
                lt == .string || rt == .string ? .string : (lt == .number && rt == .number ? .number : .dynamic)
            return (.binary(.add, l, r), type)
        default:
            if !lt.maybeNumber || !rt.maybeNumber { return mismatch() }
            return (.binary(RuleBinaryOperator(rawValue: op)!, l, r), .number)
        }
    }
}
