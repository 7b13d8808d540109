internal import HearthCore

/// Rewrites a checked expression into cheaper equivalent forms, once, at compile time. Every
/// rewrite keeps the value, the errors and their order exactly:
///
/// - consecutive `child()` calls become one `childChain` (one path built per evaluation, literal
///   segments merged: `root.child('members').child($chatId)` is `[members] + [$chatId]`);
/// - `auth == null` / `auth != null` and `auth.uid` / `auth.provider` read the auth directly.
///
/// The simulator's marks (`recorded`) are removed first, so that ordinary decisions never meet one.
enum RuleOptimizer {
    static func optimize(_ expression: RuleExpression) -> RuleExpression {
        switch expression {
        case .constant, .variable, .authIsNull, .authMember, .snapshotCall:
            return expression
        case .recorded(let inner, _):
            return optimize(inner)
        case .member(let receiver, let name):
            let r = optimize(receiver)
            if case .variable(.auth) = r, name == "uid" || name == "provider" { return .authMember(name) }
            return .member(r, name)
        case .index(let receiver, let index):
            return .index(optimize(receiver), optimize(index))
        case .call(let receiver, let method, let arguments):
            let r = optimize(receiver)
            let a = arguments.map(optimize)
            if method == .child, a.count == 1 { return chain(r, .expression(a[0])) }
            if a.isEmpty, Self.fusedMethods.contains(method), let (variable, segments) = snapshotBase(r) {
                return .snapshotCall(variable, segments, method, [])
            }
            return .call(r, method, a)
        case .childPath(let receiver, let keys, let method):
            let r = optimize(receiver)
            if method == .child { return chain(r, .keys(keys)) }
            if method == .hasChild, let (variable, segments) = snapshotBase(r) {
                return .snapshotCall(variable, segments, .hasChild, [keys])
            }
            return .childPath(r, keys, method)
        case .hasChildrenPaths(let receiver, let paths):
            let r = optimize(receiver)
            if let (variable, segments) = snapshotBase(r) {
                return .snapshotCall(variable, segments, .hasChildren, paths)
            }
            return .hasChildrenPaths(r, paths)
        case .childChain(let receiver, let segments):
            return .childChain(optimize(receiver), segments)
        case .not(let operand):
            return .not(optimize(operand))
        case .negate(let operand):
            return .negate(optimize(operand))
        case .binary(let op, let lhs, let rhs):
            let l = optimize(lhs)
            let r = optimize(rhs)
            if op == .equal || op == .notEqual {
                switch (l, r) {
                case (.variable(.auth), .constant(.null)), (.constant(.null), .variable(.auth)):
                    return .authIsNull(op == .equal)
                default:
                    break
                }
            }
            return .binary(op, l, r)
        case .and(let lhs, let rhs):
            return .and(optimize(lhs), optimize(rhs))
        case .or(let lhs, let rhs):
            return .or(optimize(lhs), optimize(rhs))
        case .conditional(let condition, let then, let otherwise):
            return .conditional(optimize(condition), optimize(then), optimize(otherwise))
        case .array(let elements):
            return .array(elements.map(optimize))
        }
    }

    /// The methods `snapshotCall` evaluates without their arguments.
    private static let fusedMethods: Set<RuleMethod> = [.val, .exists, .isNumber, .isString, .isBoolean, .hasChildren]

    /// `root`, `data` or `newData`, possibly followed by `child()` calls.
    private static func snapshotBase(_ expression: RuleExpression) -> (RuleVariable, [RuleChildSegment])? {
        switch expression {
        case .variable(let v) where v == .root || v == .data || v == .newData:
            return (v, [])
        case .childChain(.variable(let v), let segments) where v == .root || v == .data || v == .newData:
            return (v, segments)
        default:
            return nil
        }
    }

    /// `receiver.child(segment)`, appended to the receiver's chain when it is one.
    private static func chain(_ receiver: RuleExpression, _ segment: RuleChildSegment) -> RuleExpression {
        guard case .childChain(let base, var segments) = receiver else { return .childChain(receiver, [segment]) }
        if case .keys(let keys) = segment, case .keys(let previous)? = segments.last {
            segments[segments.count - 1] = .keys(previous + keys)
        } else {
            segments.append(segment)
        }
        return .childChain(base, segments)
    }
}

/// Key comparisons for the hot paths of evaluation: bytes compared directly (`ChildKey ==`
/// goes through a generic `elementsEqual`).
enum RuleKeys {
    @inline(__always)
    static func equal(_ a: ChildKey, _ b: ChildKey) -> Bool {
        a.intValue == b.intValue && a.string.utf8.count == b.string.utf8.count && equal(a.string, b.string)
    }

    /// Byte equality of two strings (no Unicode equivalence, as Firebase compares keys).
    static func equal(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { pa in
            b.utf8.withContiguousStorageIfAvailable { pb -> Bool in
                guard pa.count == pb.count else { return false }
                var i = 0
                while i < pa.count {
                    if pa[i] != pb[i] { return false }
                    i += 1
                }
                return true
            }
        }
        if let fast, let result = fast { return result }
        return a.utf8.elementsEqual(b.utf8)
    }

    /// True when `prefix` is `path` or one of its ancestors.
    @inline(__always)
    static func contains(_ prefix: DataPath, _ path: DataPath) -> Bool {
        let p = prefix.keys
        let k = path.keys
        guard k.count >= p.count else { return false }
        for i in p.indices where !equal(p[i], k[i]) { return false }
        return true
    }

    /// Appends the keys of a `child()` argument (slash-separated, empty segments skipped), every
    /// one of them; false when one is not a valid key (no data can be there).
    static func append(path: String, to keys: inout [ChildKey]) -> Bool {
        if !path.utf8.contains(UInt8(ascii: "/")) {
            if path.isEmpty { return true }
            keys.append(ChildKey(path))
            return KeyValidator.problem(path) == nil
        }
        var valid = true
        for segment in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            let key = String(Substring(segment))
            if KeyValidator.problem(key) != nil { valid = false }
            keys.append(ChildKey(key))
        }
        return valid
    }
}
