internal import HearthCore

/// Evaluates compiled expressions against the data sources of one operation. Evaluation never
/// throws: a type error, a method on null or a missing parent is an `.error` value, and a rule
/// whose result is not `true` denies (cel-go: common/types/err.go).
///
/// The sources are existentials on purpose: the public entry points are generic but called
/// from other modules unspecialized, and unspecialized generic code (dynamic layout, value
/// witness calls) measured slower than one existential box per decision.
struct RuleEvaluator {
    let auth: RuleAuth?
    let current: any RuleDataSource
    /// The database after the write (an empty source outside a write: see `inWrite`). Not an
    /// optional, so that reading it never copies the existential.
    let new: any RuleDataSource
    /// True when evaluating a write (`newData` exists).
    let inWrite: Bool
    let now: Double
    let query: RuleQuery
    /// Values of the `$wildcards` in scope, outermost first (each one key of the path).
    var wildcards: [ChildKey] = []
    /// The keys of the location of the rule being evaluated (a buffer reused while the
    /// program walks the rules and the new data, so that moving to a child allocates nothing).
    var locationKeys: [ChildKey] = []
    /// The new node at `location` when already known (validation below a write).
    var newNodeAtLocation: RuleSnapshot.Resolved = .unknown {
        didSet {
            switch newNodeAtLocation {
            case .unknown: newSummaryAtLocation = nil
            case .known(let node): newSummaryAtLocation = RuleNodeSummary(node)
            }
        }
    }
    /// The summary of `newNodeAtLocation` when known (`newData.val()` and friends read it).
    private(set) var newSummaryAtLocation: RuleNodeSummary?
    /// Where the simulator collects the values of `recorded` sub-expressions (see
    /// `RuleTraceLog`). `unowned(unsafe)`: a plain pointer, so that an ordinary decision pays no
    /// reference counting for it; the trace log that sets it keeps the recorder alive.
    unowned(unsafe) var recorder: RuleValueRecorder? = nil

    init(auth: RuleAuth?, current: any RuleDataSource, new: (any RuleDataSource)?, now: Double, query: RuleQuery) {
        self.auth = auth
        self.current = current
        self.new = new ?? Self.noNewData
        self.inWrite = new != nil
        self.now = now
        self.query = query
    }

    private static let noNewData = RuleMemorySource(root: nil)

    /// The outcome of one rule: true, false, or an error (which denies).
    func run(_ expression: RuleExpression) -> RuleOutcome {
        switch evaluate(expression) {
        case .bool(let b): return b ? .true : .false
        case .error(let message): return .error(message)
        case let other: return .error(Message.runtimeNotBoolean(other.typeName))
        }
    }

    func evaluate(_ expression: RuleExpression) -> RuleValue {
        switch expression {
        case .constant(let value):
            return value
        case .variable(let variable):
            switch variable {
            case .auth: return auth.map { .auth($0) } ?? .null
            case .root: return .snapshot(RuleSnapshot(source: .current, path: .root, resolved: .unknown))
            case .data:
                return .snapshot(RuleSnapshot(source: .current, path: DataPath(keys: locationKeys), resolved: .unknown))
            case .newData:
                guard inWrite else { return .error("'newData' outside a write") }
                return .snapshot(
                    RuleSnapshot(source: .new, path: DataPath(keys: locationKeys), resolved: newNodeAtLocation)
                )
            case .now: return .number(now)
            case .query: return .query(query)
            case .wildcard(let index):
                return index < wildcards.count ? .string(wildcards[index].string) : .error("wildcard out of scope")
            }
        case .authIsNull(let equal):
            return .bool((auth == nil) == equal)
        case .authMember(let name):
            // A member of null is null (`auth.uid != 'x'` is true when signed out).
            guard let auth else { return .null }
            return .string(name == "uid" ? auth.uid : auth.provider)
        case .childChain(let receiver, let segments):
            let r = evaluate(receiver)
            guard case .snapshot(let snapshot) = r else {
                if case .error = r { return r }
                return .error(Message.runtimeMethod(RuleMethod.child.rawValue, r.typeName))
            }
            if segments.count == 1, case .keys(let keys) = segments[0] { return .snapshot(child(snapshot, keys)) }
            var keys: [ChildKey] = []
            switch appendKeys(segments, to: &keys) {
            case .valid: return .snapshot(child(snapshot, keys))
            case .invalid: return .snapshot(child(snapshot, keys).cannotHoldData)
            case .failed(let failure): return failure
            }
        case .snapshotCall(let variable, let segments, let method, let paths):
            return snapshotCall(variable, segments, method, paths)
        case .member(let receiver, let name):
            return member(evaluate(receiver), name)
        case .index(let receiver, let index):
            let r = evaluate(receiver)
            switch evaluate(index) {
            case .string(let s): return member(r, s)
            case .number(let n):
                if case .json(.array(let elements)) = r {
                    let i = Int(exactly: n) ?? -1
                    return i >= 0 && i < elements.count ? RuleValue(json: elements[i]) : .null
                }
                return member(r, RuleEvaluator.numberString(n))
            case .error(let e): return .error(e)
            case let other: return .error(Message.runtimeMember("[\(other.typeName)]", r.typeName))
            }
        case .call(let receiver, let method, let arguments):
            return call(evaluate(receiver), method, arguments)
        case .childPath(let receiver, let keys, let method):
            let r = evaluate(receiver)
            guard case .snapshot(let snapshot) = r else {
                if case .error = r { return r }
                return .error(Message.runtimeMethod(method.rawValue, r.typeName))
            }
            let c = child(snapshot, keys)
            return method == .child ? .snapshot(c) : .bool(summary(c) != .absent)
        case .hasChildrenPaths(let receiver, let paths):
            let r = evaluate(receiver)
            guard case .snapshot(let snapshot) = r else {
                if case .error = r { return r }
                return .error(Message.runtimeMethod("hasChildren", r.typeName))
            }
            if paths.isEmpty { return .bool(summary(snapshot) == .children) }
            // Absent or a leaf: no children at all.
            if case .known(let node) = snapshot.resolved, node == nil || node!.isLeaf { return .bool(false) }
            for keys in paths where summary(child(snapshot, keys)) == .absent { return .bool(false) }
            return .bool(true)
        case .not(let operand):
            switch evaluate(operand) {
            case .bool(let b): return .bool(!b)
            case .error(let e): return .error(e)
            case let other: return .error(Message.runtimeUnary("!", other.typeName))
            }
        case .negate(let operand):
            switch evaluate(operand) {
            case .number(let n): return .number(-n)
            case .error(let e): return .error(e)
            case let other: return .error(Message.runtimeUnary("-", other.typeName))
            }
        case .and(let lhs, let rhs):
            switch evaluate(lhs) {
            case .bool(false): return .bool(false)
            case .bool(true): return boolean(evaluate(rhs), "&&")
            case .error(let e): return .error(e)
            case let other: return .error(Message.runtimeUnary("&&", other.typeName))
            }
        case .or(let lhs, let rhs):
            switch evaluate(lhs) {
            case .bool(true): return .bool(true)
            case .bool(false): return boolean(evaluate(rhs), "||")
            case .error(let e): return .error(e)
            case let other: return .error(Message.runtimeUnary("||", other.typeName))
            }
        case .conditional(let condition, let then, let otherwise):
            switch evaluate(condition) {
            case .bool(let b): return evaluate(b ? then : otherwise)
            case .error(let e): return .error(e)
            case let other: return .error(Message.runtimeUnary("?:", other.typeName))
            }
        case .binary(let op, let lhs, let rhs):
            return binary(op, evaluate(lhs), evaluate(rhs))
        case .array(let elements):
            return .array(elements.map(evaluate))
        case .recorded(let inner, let span):
            let value = evaluate(inner)
            recorder?.record(span, value)
            return value
        }
    }

    private func boolean(_ value: RuleValue, _ op: String) -> RuleValue {
        switch value {
        case .bool, .error: return value
        default: return .error(Message.runtimeUnary(op, value.typeName))
        }
    }

    static func numberString(_ n: Double) -> String {
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)
    }

    // MARK: Methods

    private func call(_ receiver: RuleValue, _ method: RuleMethod, _ arguments: [RuleExpression]) -> RuleValue {
        if case .error = receiver { return receiver }
        if method.isSnapshotMethod {
            guard case .snapshot(let snapshot) = receiver else {
                return .error(Message.runtimeMethod(method.rawValue, receiver.typeName))
            }
            return snapshotCall(snapshot, method, arguments)
        }
        guard case .string(let s) = receiver else {
            return .error(Message.runtimeMethod(method.rawValue, receiver.typeName))
        }
        var strings: [String] = []
        for argument in arguments {
            switch evaluate(argument) {
            case .string(let a): strings.append(a)
            case .regex(let regex):
                guard method == .matches else {
                    return .error(Message.runtimeArgument(method.rawValue, "a regular expression"))
                }
                guard let result = regex.matches(s) else {
                    return .error("regular expression too costly on this input")
                }
                return .bool(result)
            case .error(let e): return .error(e)
            case let other: return .error(Message.runtimeArgument(method.rawValue, other.typeName))
            }
        }
        switch method {
        case .contains: return .bool(strings[0].isEmpty || RuleEvaluator.find(strings[0], in: s) != nil)
        case .beginsWith: return .bool(s.utf8.starts(with: strings[0].utf8))
        case .endsWith: return .bool(s.utf8.reversed().starts(with: strings[0].utf8.reversed()))
        case .replace: return .string(RuleEvaluator.replaceAll(s, strings[0], strings[1]))
        case .toLowerCase: return .string(s.lowercased())
        case .toUpperCase: return .string(s.uppercased())
        default: return .error(Message.runtimeMethod(method.rawValue, "a string"))
        }
    }

    /// Byte offset of the first occurrence of `needle` in `haystack` (UTF-8, code unit exact).
    static func find(_ needle: String, in haystack: String, from start: Int = 0) -> Int? {
        let h = Array(haystack.utf8)
        let n = Array(needle.utf8)
        guard !n.isEmpty, h.count >= n.count else { return nil }
        var i = start
        while i + n.count <= h.count {
            if h[i] == n[0] && h[i..<(i + n.count)].elementsEqual(n) { return i }
            i += 1
        }
        return nil
    }

    /// Every occurrence of `target` replaced (Firebase's `replace` replaces all instances).
    static func replaceAll(_ s: String, _ target: String, _ replacement: String) -> String {
        let h = Array(s.utf8)
        let n = Array(target.utf8)
        guard !n.isEmpty else { return s }
        var out: [UInt8] = []
        out.reserveCapacity(h.count)
        var i = 0
        while i < h.count {
            if i + n.count <= h.count && h[i..<(i + n.count)].elementsEqual(n) {
                out.append(contentsOf: replacement.utf8)
                i += n.count
            } else {
                out.append(h[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    func summary(_ snapshot: RuleSnapshot) -> RuleNodeSummary {
        switch snapshot.resolved {
        case .known(let node):
            switch node {
            case nil: return .absent
            case .leaf(let value, _)?: return .leaf(value)
            case .children?: return .children
            }
        case .unknown:
            switch snapshot.source {
            case .current: return current.summary(at: snapshot.path)
            case .new: return inWrite ? new.summary(at: snapshot.path) : .absent
            }
        }
    }

    /// `snapshot.child(path)`: slash-separated keys, empty segments skipped.
    /// A path with a key no data can have (`'banned/' + auth.uid` for the uid
    /// 'bob@example.com') is a snapshot of nothing, not an error: Firebase answers
    /// `root.child('banned/bob@example.com').val() != true` with true.
    private func child(_ snapshot: RuleSnapshot, _ pathString: String) -> RuleValue {
        var keys: [ChildKey] = []
        guard RuleKeys.append(path: pathString, to: &keys) else {
            return .snapshot(child(snapshot, keys).cannotHoldData)
        }
        return .snapshot(child(snapshot, keys))
    }

    /// The snapshot at `keys` below `snapshot`; a known node stays known.
    private func child(_ snapshot: RuleSnapshot, _ keys: [ChildKey]) -> RuleSnapshot {
        if keys.isEmpty { return snapshot }
        var result = snapshot
        if result.suffix.isEmpty {
            result.suffix = keys
        } else {
            result.suffix.append(contentsOf: keys)
        }
        if case .known(let node) = snapshot.resolved {
            var n = node
            for key in keys {
                guard case .children(let children, _)? = n else {
                    n = nil
                    break
                }
                n = children[key]
                if n == nil { break }
            }
            result.resolved = .known(n)
        }
        return result
    }

    private func snapshotCall(
        _ snapshot: RuleSnapshot,
        _ method: RuleMethod,
        _ arguments: [RuleExpression]
    ) -> RuleValue {
        switch method {
        case .val:
            switch summary(snapshot) {
            case .absent: return .null
            case .leaf(let value): return RuleValue(value)
            case .children: return .object
            }
        case .child, .hasChild:
            let argument = evaluate(arguments[0])
            guard case .string(let path) = argument else {
                if case .error = argument { return argument }
                return .error(Message.runtimeArgument(method.rawValue, argument.typeName))
            }
            let result = child(snapshot, path)
            guard method == .hasChild else { return result }
            guard case .snapshot(let c) = result else { return result }
            return .bool(summary(c) != .absent)
        case .parent:
            guard let parent = snapshot.path.parent else { return .error(Message.runtimeRootParent()) }
            let result = RuleSnapshot(source: snapshot.source, path: parent, resolved: .unknown)
            // Still below a key no data can have (`child('a.b/c').parent()`): still nothing.
            if parent.keys.contains(where: { !KeyValidator.isValid($0.string) }) {
                return .snapshot(result.cannotHoldData)
            }
            return .snapshot(result)
        case .hasChildren:
            guard let argument = arguments.first else { return .bool(summary(snapshot) == .children) }
            guard case .array(let names) = evaluate(argument) else {
                return .error(Message.runtimeArgument("hasChildren", "not an array"))
            }
            if names.isEmpty { return .bool(summary(snapshot) == .children) }
            for name in names {
                guard case .string(let path) = name else {
                    if case .error = name { return name }
                    return .error(Message.runtimeArgument("hasChildren", name.typeName))
                }
                if case .snapshot(let c) = child(snapshot, path), summary(c) == .absent { return .bool(false) }
            }
            return .bool(true)
        case .exists:
            return .bool(summary(snapshot) != .absent)
        case .getPriority:
            switch snapshot.resolved {
            case .known(let node): return RuleValue(priority: node?.priority)
            case .unknown:
                switch snapshot.source {
                case .current: return RuleValue(priority: current.priority(at: snapshot.path))
                case .new: return RuleValue(priority: inWrite ? new.priority(at: snapshot.path) : nil)
                }
            }
        case .isNumber, .isString, .isBoolean:
            guard case .leaf(let value) = summary(snapshot) else { return .bool(false) }
            switch (method, value) {
            case (.isNumber, .number), (.isString, .string), (.isBoolean, .bool): return .bool(true)
            default: return .bool(false)
            }
        default:
            return .error(Message.runtimeMethod(method.rawValue, "a snapshot"))
        }
    }
}
