internal import HearthCore

/// Runs the expressions of one decision: the variables in scope, the functions the rules
/// declare, the database for `database.get/exists`, and the budgets that keep a rule from
/// running away (steps, call depth, database reads).
final class StorageRuleEvaluator {
    /// Evaluation steps one decision may take before its rules count as an error.
    static let stepBudget = 100_000
    /// How deeply functions may call each other (Firebase: 20).
    static let maxCallDepth = 20
    /// Distinct database locations one decision may read (Firebase allows 10 document reads).
    static let maxDatabaseReads = 10

    let request: StorageRuleValue
    let resource: StorageRuleValue
    let database: (any StorageRulesDatabase)?
    /// The rules' literal patterns, compiled at load.
    let regexes: StorageRegexes
    private var steps = 0
    private var callDepth = 0
    private var databaseCache: [DataPath: StorageRuleValue] = [:]

    init(
        request: StorageRuleValue,
        resource: StorageRuleValue,
        database: (any StorageRulesDatabase)?,
        regexes: StorageRegexes = StorageRegexes()
    ) {
        self.request = request
        self.resource = resource
        self.database = database
        self.regexes = regexes
    }

    /// What an expression can see: the variables (wildcards, parameters, `let`s) and the
    /// functions declared around it.
    struct Environment {
        var variables: [String: StorageRuleValue]
        let scope: StorageFunctionScope
    }

    /// The simulator's record of the condition being evaluated; nil (the server's case): nothing
    /// is recorded.
    var recording: StorageEvaluationRecording?

    func evaluate(_ expression: StorageExpression, _ environment: Environment) -> StorageRuleValue {
        guard let recording else { return compute(expression, environment) }
        recording.enter()
        let value = compute(expression, environment)
        recording.leave(expression, value)
        return value
    }

    private func compute(_ expression: StorageExpression, _ environment: Environment) -> StorageRuleValue {
        steps += 1
        if steps > Self.stepBudget { return .error("the rules took more than \(Self.stepBudget) steps") }
        switch expression.kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .float(let f): return .float(f)
        case .string(let s): return .string(s)
        case .bytes(let b): return .bytes(b)
        case .identifier(let name): return variable(name, environment)
        case .member(let base, let name):
            return member(evaluate(base, environment), name)
        case .index(let base, let key):
            return index(evaluate(base, environment), evaluate(key, environment))
        case .slice(let base, let from, let to):
            return slice(
                evaluate(base, environment),
                from.map { evaluate($0, environment) },
                to.map { evaluate($0, environment) }
            )
        case .call(let callee, let arguments): return call(callee, arguments, environment)
        case .not(let operand):
            switch evaluate(operand, environment) {
            case .bool(let b): return .bool(!b)
            case .error(let message): return .error(message)
            case let other: return .error("'!' takes a bool, not \(other.typeName)")
            }
        case .negate(let operand):
            switch evaluate(operand, environment) {
            case .int(let i): return i == .min ? .error("integer overflow") : .int(-i)
            case .float(let f): return .float(-f)
            case .duration(let d): return d == .min ? .error("duration overflow") : .duration(-d)
            case .error(let message): return .error(message)
            case let other: return .error("'-' takes a number, not \(other.typeName)")
            }
        case .binary(let op, let left, let right):
            return Self.apply(op, evaluate(left, environment), evaluate(right, environment))
        case .and(let left, let right):
            let l = evaluate(left, environment)
            if case .bool(false) = l { return .bool(false) }
            let r = evaluate(right, environment)
            return Self.logical(l, r, and: true)
        case .or(let left, let right):
            let l = evaluate(left, environment)
            if case .bool(true) = l { return .bool(true) }
            let r = evaluate(right, environment)
            return Self.logical(l, r, and: false)
        case .conditional(let condition, let then, let otherwise):
            switch evaluate(condition, environment) {
            case .bool(true): return evaluate(then, environment)
            case .bool(false): return evaluate(otherwise, environment)
            case .error(let message): return .error(message)
            case let other: return .error("a condition takes a bool, not \(other.typeName)")
            }
        case .list(let items):
            var values: [StorageRuleValue] = []
            for item in items {
                let value = evaluate(item, environment)
                if value.isError { return value }
                values.append(value)
            }
            return .list(values)
        case .map(let entries):
            var map: [String: StorageRuleValue] = [:]
            for (keyExpression, valueExpression) in entries {
                let key = evaluate(keyExpression, environment)
                guard case .string(let name) = key else {
                    return key.isError ? key : .error("map keys are strings, not \(key.typeName)")
                }
                let value = evaluate(valueExpression, environment)
                if value.isError { return value }
                map[name] = value
            }
            return .map(map)
        case .path(let parts):
            var segments: [String] = []
            for part in parts {
                switch part {
                case .literal(let text): segments.append(text)
                case .interpolation(let inner):
                    switch evaluate(inner, environment) {
                    case .string(let s): segments.append(s)
                    case .int(let i): segments.append(String(i))
                    case .path(let more): segments += more
                    case .error(let message): return .error(message)
                    case let other: return .error("'$(...)' in a path takes a string, not \(other.typeName)")
                    }
                }
            }
            return .path(segments)
        case .isType(let operand, let type):
            let value = evaluate(operand, environment)
            if value.isError { return value }
            return .bool(value.isType(type))
        }
    }

    /// `&&` / `||` once the left side did not decide: an error on one side is absorbed when
    /// the other side decides the result.
    static func logical(_ l: StorageRuleValue, _ r: StorageRuleValue, and: Bool) -> StorageRuleValue {
        let decisive = !and
        switch (l, r) {
        case (.bool(let a), .bool(let b)): return .bool(and ? a && b : a || b)
        case (_, .bool(let b)) where b == decisive: return .bool(b)
        case (.error(let message), _), (_, .error(let message)): return .error(message)
        default:
            let bad = l.isType("bool") ? r : l
            return .error("'\(and ? "&&" : "||")' takes bools, not \(bad.typeName)")
        }
    }

    func variable(_ name: String, _ environment: Environment) -> StorageRuleValue {
        if let value = environment.variables[name] { return value }
        switch name {
        case "request": return request
        case "resource": return resource
        default: return .error("unknown variable '\(name)'")
        }
    }

    func member(_ base: StorageRuleValue, _ name: String) -> StorageRuleValue {
        switch base {
        case .map(let map):
            return map[name] ?? .error("property '\(name)' is undefined on the map")
        case .error: return base
        case .null: return .error("null value has no property '\(name)'")
        default: return .error("\(base.typeName) has no property '\(name)'")
        }
    }

    func index(_ base: StorageRuleValue, _ key: StorageRuleValue) -> StorageRuleValue {
        switch (base, key) {
        case (.error, _): return base
        case (_, .error): return key
        case (.map(let map), .string(let name)): return map[name] ?? .error("key '\(name)' is not in the map")
        case (.list(let items), .int(let i)):
            guard i >= 0, i < items.count else { return .error("index \(i) is out of range (size \(items.count))") }
            return items[Int(i)]
        case (.path(let segments), .int(let i)):
            guard i >= 0, i < segments.count else {
                return .error("index \(i) is out of range (size \(segments.count))")
            }
            return .string(segments[Int(i)])
        case (.string(let s), .int(let i)):
            let scalars = Array(s.unicodeScalars)
            guard i >= 0, i < scalars.count else { return .error("index \(i) is out of range (size \(scalars.count))") }
            return .string(String(scalars[Int(i)]))
        default: return .error("cannot index \(base.typeName) with \(key.typeName)")
        }
    }

    func slice(_ base: StorageRuleValue, _ from: StorageRuleValue?, _ to: StorageRuleValue?) -> StorageRuleValue {
        struct SliceError: Error { let message: String }
        func bounds(_ count: Int) -> Result<Range<Int>, SliceError> {
            var low = 0
            var high = count
            if let from {
                guard case .int(let i) = from else { return .failure(SliceError(message: "a slice takes int bounds")) }
                low = Int(clamping: i)
            }
            if let to {
                guard case .int(let i) = to else { return .failure(SliceError(message: "a slice takes int bounds")) }
                high = Int(clamping: i)
            }
            guard low >= 0, high <= count, low <= high else {
                return .failure(SliceError(message: "slice [\(low):\(high)] is out of range (size \(count))"))
            }
            return .success(low..<high)
        }
        if case .error = base { return base }
        if let from, from.isError { return from }
        if let to, to.isError { return to }
        switch base {
        case .list(let items):
            switch bounds(items.count) {
            case .success(let range): return .list(Array(items[range]))
            case .failure(let failure): return .error(failure.message)
            }
        case .string(let s):
            let scalars = Array(s.unicodeScalars)
            switch bounds(scalars.count) {
            case .success(let range): return .string(String(String.UnicodeScalarView(scalars[range])))
            case .failure(let failure): return .error(failure.message)
            }
        case .path(let segments):
            switch bounds(segments.count) {
            case .success(let range): return .path(Array(segments[range]))
            case .failure(let failure): return .error(failure.message)
            }
        default: return .error("cannot slice \(base.typeName)")
        }
    }

    // MARK: Calls

    func call(
        _ callee: StorageExpression,
        _ arguments: [StorageExpression],
        _ environment: Environment
    ) -> StorageRuleValue {
        switch callee.kind {
        case .identifier(let name):
            if let (function, scope) = environment.scope.lookup(name) {
                return callFunction(function, declaredIn: scope, arguments, environment)
            }
            let values = arguments.map { evaluate($0, environment) }
            if let error = values.first(where: \.isError) { return error }
            return global(name, values)
        case .member(let base, let name):
            if case .identifier(let namespace) = base.kind, environment.variables[namespace] == nil,
                Self.namespaces.contains(namespace)
            {
                let values = arguments.map { evaluate($0, environment) }
                if let error = values.first(where: \.isError) { return error }
                return namespaced(namespace, name, values)
            }
            let target = evaluate(base, environment)
            if target.isError { return target }
            let values = arguments.map { evaluate($0, environment) }
            if let error = values.first(where: \.isError) { return error }
            return method(name, of: target, values)
        default:
            return .error("'\(callee.text)' is not a function")
        }
    }

    func callFunction(
        _ function: StorageFunctionSyntax,
        declaredIn scope: StorageFunctionScope,
        _ arguments: [StorageExpression],
        _ environment: Environment
    ) -> StorageRuleValue {
        guard arguments.count == function.parameters.count else {
            return .error("function '\(function.name)' takes \(function.parameters.count) arguments")
        }
        guard callDepth < Self.maxCallDepth else {
            return .error("functions called more than \(Self.maxCallDepth) deep")
        }
        var inner = Environment(variables: environment.variables, scope: scope)
        for (parameter, argument) in zip(function.parameters, arguments) {
            inner.variables[parameter] = evaluate(argument, environment)
        }
        callDepth += 1
        defer { callDepth -= 1 }
        for binding in function.bindings {
            inner.variables[binding.name] = evaluate(binding.value, inner)
        }
        return evaluate(function.result, inner)
    }

    // MARK: Operators

    static func apply(_ op: StorageOperator, _ l: StorageRuleValue, _ r: StorageRuleValue) -> StorageRuleValue {
        if case .error = l { return l }
        if case .error = r { return r }
        switch op {
        case .equal: return StorageRuleValue.equal(l, r).map(StorageRuleValue.bool) ?? .error("comparison failed")
        case .notEqual: return StorageRuleValue.equal(l, r).map { .bool(!$0) } ?? .error("comparison failed")
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let order = StorageRuleValue.compare(l, r) else {
                return .error("cannot compare \(l.typeName) with \(r.typeName) using '\(op.rawValue)'")
            }
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case .in:
            switch r {
            case .list(let items), .set(let items): return .bool(StorageRuleValue.contains(items, l))
            case .map(let map):
                guard case .string(let key) = l else {
                    return .error("'in' a map takes a string key, not \(l.typeName)")
                }
                return .bool(map[key] != nil)
            default: return .error("'in' takes a list, set or map on its right, not \(r.typeName)")
            }
        case .plus, .minus, .times, .divide, .modulo: return arithmetic(op, l, r)
        }
    }

    static func arithmetic(_ op: StorageOperator, _ l: StorageRuleValue, _ r: StorageRuleValue) -> StorageRuleValue {
        switch (l, r) {
        case (.int(let a), .int(let b)):
            let result: (Int64, Bool)
            switch op {
            case .plus: result = a.addingReportingOverflow(b)
            case .minus: result = a.subtractingReportingOverflow(b)
            case .times: result = a.multipliedReportingOverflow(by: b)
            case .divide:
                guard b != 0 else { return .error("division by zero") }
                result = a.dividedReportingOverflow(by: b)
            default:
                guard b != 0 else { return .error("modulo by zero") }
                result = a.remainderReportingOverflow(dividingBy: b)
            }
            return result.1 ? .error("integer overflow") : .int(result.0)
        case (.int, .float), (.float, .int), (.float, .float):
            let a = l.double!
            let b = r.double!
            switch op {
            case .plus: return .float(a + b)
            case .minus: return .float(a - b)
            case .times: return .float(a * b)
            case .divide: return .float(a / b)
            default: return .float(a.truncatingRemainder(dividingBy: b))
            }
        case (.string(let a), .string(let b)) where op == .plus: return .string(a + b)
        case (.bytes(let a), .bytes(let b)) where op == .plus: return .bytes(a + b)
        case (.list(let a), .list(let b)) where op == .plus: return .list(a + b)
        case (.timestamp(let s, let n), .duration(let d)) where op == .plus || op == .minus:
            let signed = op == .plus ? d : -d
            return StorageTime.timestamp(seconds: s, nanos: Int64(n) + signed % StorageTime.nanosPerSecond)
                .shifted(seconds: signed / StorageTime.nanosPerSecond)
        case (.duration(let d), .timestamp(let s, let n)) where op == .plus:
            return StorageTime.timestamp(seconds: s, nanos: Int64(n) + d % StorageTime.nanosPerSecond)
                .shifted(seconds: d / StorageTime.nanosPerSecond)
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)) where op == .minus:
            let (seconds, overflow) = (s1 - s2).multipliedReportingOverflow(by: StorageTime.nanosPerSecond)
            guard !overflow else { return .error("duration overflow") }
            let (total, overflow2) = seconds.addingReportingOverflow(Int64(n1) - Int64(n2))
            return overflow2 ? .error("duration overflow") : .duration(total)
        case (.duration(let a), .duration(let b)) where op == .plus || op == .minus:
            let (result, overflow) = op == .plus ? a.addingReportingOverflow(b) : a.subtractingReportingOverflow(b)
            return overflow ? .error("duration overflow") : .duration(result)
        default:
            return .error("'\(op.rawValue)' does not take \(l.typeName) and \(r.typeName)")
        }
    }

    static let namespaces: Set<String> = ["math", "timestamp", "duration", "latlng", "hashing", "database"]

    // MARK: The database

    /// `database.get(path)` (the value there, `null` when none) and `database.exists(path)`.
    func read(_ value: StorageRuleValue) -> StorageRuleValue {
        guard case .path(let segments) = value else {
            return .error(
                "database.get and database.exists take a path such as /chats/$(chatId), not \(value.typeName)"
            )
        }
        guard let database else { return .error("these rules have no database to read") }
        var keys: [ChildKey] = []
        for segment in segments {
            guard KeyValidator.isValid(segment) else { return .error("'\(segment)' is not a valid database key") }
            keys.append(ChildKey(segment))
        }
        let path = DataPath(keys: keys)
        if let cached = databaseCache[path] { return cached }
        guard databaseCache.count < Self.maxDatabaseReads else {
            return .error("the rules read more than \(Self.maxDatabaseReads) database locations")
        }
        let result = StorageRuleValue(node: database.node(at: path))
        databaseCache[path] = result
        return result
    }
}

extension StorageRuleValue {
    var double: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .float(let f): return f
        default: return nil
        }
    }

    /// A timestamp moved by whole seconds (an error stays).
    func shifted(seconds: Int64) -> StorageRuleValue {
        guard case .timestamp(let s, let n) = self else { return self }
        let (total, overflow) = s.addingReportingOverflow(seconds)
        guard !overflow else { return .error("timestamp out of range (years 1 to 9999)") }
        return StorageTime.timestamp(seconds: total, nanos: Int64(n))
    }
}
