// What Firebase requires of a rule's types at deploy, beyond each operator's own operands
// (see "What loads, what is refused, and why" in docs/rules.md).
extension RuleChecker {
    /// A rule must be a boolean on every branch, as Firebase's deploy requires: statically known
    /// to be one, not just possibly one (`data.val()`, `auth != null ? 'yes' : false` are refused).
    func requireBooleanRule(_ syntax: RuleSyntax, _ type: RuleType, branch: Bool = false) {
        if type == .boolean || type == .unknown { return }
        if case .conditional(_, let then, let otherwise) = syntax.kind {
            let silent = RuleChecker(kind: kind, wildcards: wildcards) { _, _ in }
            for part in [then, otherwise] {
                requireBooleanRule(part, silent.check(part).1, branch: true)
            }
            return
        }
        let message = Message.notBoolean(kind.rawValue, type: type.name, known: type.isKnown, branch: branch)
        report(Self.start(of: syntax), message)
    }

    /// Reports an operand of `!`, `&&` or `||` that is not statically a boolean, as Firebase
    /// requires; true when it is one.
    func requireBoolean(_ operand: RuleSyntax, _ type: RuleType, of op: String) -> Bool {
        if type == .boolean || type == .unknown { return true }
        report(Self.start(of: operand), Message.operandNotBoolean(op, type: type.name, known: type.isKnown))
        return false
    }

    /// The offset where an expression's text begins (a binary expression's node sits on its
    /// operator, a member's on its name).
    static func start(of syntax: RuleSyntax) -> Int {
        switch syntax.kind {
        case .binary(_, let lhs, _): return start(of: lhs)
        case .member(let receiver, _), .index(let receiver, _): return start(of: receiver)
        case .call(let callee, _): return start(of: callee)
        case .conditional(let condition, _, _): return start(of: condition)
        default: return syntax.offset
        }
    }

    /// `query.orderByChild` (also written `query['orderByChild']`).
    static func isOrdering(_ syntax: RuleSyntax) -> Bool {
        guard case .member(let receiver, "orderByChild") = syntax.kind,
            case .identifier("query") = receiver.kind
        else { return false }
        return true
    }
}
