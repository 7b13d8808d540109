internal import HearthCore

/// A checked, compiled rule expression: variables and methods resolved, ready to evaluate.
indirect enum RuleExpression: Sendable {
    case constant(RuleValue)
    case variable(RuleVariable)
    case member(RuleExpression, String)
    case index(RuleExpression, RuleExpression)
    case call(RuleExpression, RuleMethod, [RuleExpression])
    /// `child('a/b')` or `hasChild('a/b')` with a literal path, split into keys at compile time.
    case childPath(RuleExpression, [ChildKey], RuleMethod)
    /// `hasChildren(['a', 'b/c'])` with literal names.
    case hasChildrenPaths(RuleExpression, [[ChildKey]])
    /// Consecutive `child(...)` calls fused by `RuleOptimizer`:
    /// `root.child('members').child($chatId).child(auth.uid)` builds one path, once.
    case childChain(RuleExpression, [RuleChildSegment])
    /// A snapshot method on `root`, `data` or `newData`, or on a child of one, without building
    /// the snapshot (from `RuleOptimizer`): `newData.val()`, `data.exists()`,
    /// `root.child('members').child($chatId).child(auth.uid).exists()`, `newData.hasChild('text')`.
    /// The method is `val`, `exists`, `isNumber`, `isString`, `isBoolean`, `hasChildren` (with the
    /// literal paths, or none) or `hasChild` (with its one literal path).
    case snapshotCall(RuleVariable, [RuleChildSegment], RuleMethod, [[ChildKey]])
    /// `auth == null` (true) or `auth != null` (false), from `RuleOptimizer`.
    case authIsNull(Bool)
    /// `auth.uid` or `auth.provider`, from `RuleOptimizer`.
    case authMember(String)
    case not(RuleExpression)
    case negate(RuleExpression)
    case binary(RuleBinaryOperator, RuleExpression, RuleExpression)
    case and(RuleExpression, RuleExpression)
    case or(RuleExpression, RuleExpression)
    case conditional(RuleExpression, RuleExpression, RuleExpression)
    case array([RuleExpression])
    /// A sub-expression whose value the simulator records, with where its text is in the rule.
    /// Only `CompiledRule.traced` has these (the checker writes them, `RuleOptimizer` removes
    /// them): the expression every ordinary decision evaluates never does.
    case recorded(RuleExpression, RuleSpan)
}

/// Where a sub-expression's text is in its rule: Unicode scalar offsets `start..<end` of the
/// expression.
struct RuleSpan: Hashable, Sendable {
    let start: Int
    let end: Int
}

/// One `child(...)` of a `childChain`.
enum RuleChildSegment: Sendable {
    /// A literal path, split and validated at compile time.
    case keys([ChildKey])
    /// A computed path (a string; slashes separate keys).
    case expression(RuleExpression)
}

enum RuleVariable: Sendable, Equatable {
    case auth
    case root
    case data
    case newData
    case now
    case query
    /// A `$wildcard`, by its index in the chain of wildcards from the root.
    case wildcard(Int)
}

enum RuleBinaryOperator: String, Sendable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case remainder = "%"
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// Every method a rule can call: on snapshots, then on strings.
enum RuleMethod: String, Sendable, CaseIterable {
    case val, child, parent, hasChild, hasChildren, exists, getPriority, isNumber, isString, isBoolean
    case contains, beginsWith, endsWith, replace, toLowerCase, toUpperCase, matches

    static let snapshotMethods: [RuleMethod] = [
        .val, .child, .parent, .hasChild, .hasChildren, .exists, .getPriority, .isNumber, .isString, .isBoolean,
    ]
    static let stringMethods: [RuleMethod] = [
        .contains, .beginsWith, .endsWith, .replace, .toLowerCase, .toUpperCase, .matches,
    ]

    var isSnapshotMethod: Bool { Self.snapshotMethods.contains(self) }

    /// The accepted argument counts.
    var arity: ClosedRange<Int> {
        switch self {
        case .val, .parent, .exists, .getPriority, .isNumber, .isString, .isBoolean, .toLowerCase, .toUpperCase:
            return 0...0
        case .child, .hasChild, .contains, .beginsWith, .endsWith, .matches: return 1...1
        case .hasChildren: return 0...1
        case .replace: return 2...2
        }
    }

    var arityDescription: String {
        switch arity {
        case 0...0: return "no arguments"
        case 1...1: return "1 argument"
        case 0...1: return "no arguments or 1 array of child names"
        default: return "\(arity.upperBound) arguments"
        }
    }
}
