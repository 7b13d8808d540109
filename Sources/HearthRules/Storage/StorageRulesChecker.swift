/// Checks a parsed storage rules file and puts it together for evaluation: every name used is
/// declared (variables, functions, methods, namespaces), calls take the right number of
/// arguments, functions do not recurse, wildcards do not shadow each other, literal patterns
/// compile. Collects every problem rather than stopping at the first.
struct StorageRulesChecker {
    let syntax: StorageRulesSyntax
    private(set) var problems: [(position: SourcePosition, message: String)] = []
    private var usesDatabase = false
    /// The literal patterns, compiled while checking them.
    private var regexes = StorageRegexes()
    private var compiled: [StorageCompiledMatch] = []
    /// The function whose body is being checked, and the calls each function makes.
    private var currentFunction: String?
    private var calls: [String: Set<String>] = [:]
    private var functionPositions: [String: SourcePosition] = [:]
    /// The most `let`s a function may have (Firebase: 10).
    static let maxBindings = 10

    init(syntax: StorageRulesSyntax) {
        self.syntax = syntax
    }

    mutating func run() -> StorageRules {
        let service = scope(syntax.functions, parent: nil, variables: [])
        for match in syntax.matches { visit(match, prefix: [], variables: [], scope: service) }
        checkRecursion()
        guard problems.isEmpty else { return StorageRules(version: syntax.version, matches: [], usesDatabase: false) }
        var use = StorageDatabaseUse()
        let matches = compiled.map { match in
            var match = match
            match.readingDatabase = match.allows.map { allow in
                allow.condition.map { use.reads($0, in: match.scope) } ?? false
            }
            return match
        }
        return StorageRules(version: syntax.version, matches: matches, usesDatabase: usesDatabase, regexes: regexes)
    }

    private mutating func report(_ position: SourcePosition, _ message: String) {
        problems.append((position, message))
    }

    private func key(_ scope: StorageFunctionScope, _ name: String) -> String {
        "\(ObjectIdentifier(scope).hashValue):\(name)"
    }

    private mutating func scope(
        _ functions: [StorageFunctionSyntax],
        parent: StorageFunctionScope?,
        variables: Set<String>
    ) -> StorageFunctionScope {
        var table: [String: StorageFunctionSyntax] = [:]
        for function in functions {
            if table[function.name] != nil {
                report(function.position, Message.storageDuplicateFunction(function.name))
                continue
            }
            table[function.name] = function
        }
        let scope = StorageFunctionScope(functions: table, parent: parent)
        for function in table.values {
            let functionKey = key(scope, function.name)
            functionPositions[functionKey] = function.position
            currentFunction = functionKey
            var names = variables
            for parameter in function.parameters {
                if names.contains(parameter), !variables.contains(parameter) {
                    report(function.position, Message.storageDuplicateName(parameter))
                }
                names.insert(parameter)
            }
            if function.bindings.count > Self.maxBindings {
                report(function.position, Message.storageTooManyLets(Self.maxBindings))
            }
            for binding in function.bindings {
                check(binding.value, names, scope)
                if function.parameters.contains(binding.name)
                    || function.bindings.filter({ $0.name == binding.name }).count > 1
                {
                    report(binding.position, Message.storageDuplicateName(binding.name))
                }
                names.insert(binding.name)
            }
            check(function.result, names, scope)
            currentFunction = nil
        }
        return scope
    }

    private mutating func visit(
        _ match: StorageMatchSyntax,
        prefix: [StoragePatternSegment],
        variables: Set<String>,
        scope parent: StorageFunctionScope
    ) {
        let pattern = prefix + match.segments
        var names = variables
        for segment in match.segments {
            guard let name = segment.variable else { continue }
            if names.contains(name) { report(match.position, Message.wildcardShadows(name)) }
            names.insert(name)
        }
        let recursive = pattern.indices.filter {
            if case .recursive = pattern[$0] { return true } else { return false }
        }
        if recursive.count > 1,
            match.segments.contains(where: { if case .recursive = $0 { return true } else { return false } })
        {
            report(match.position, Message.storageTwoRecursiveWildcards())
        } else if syntax.version < 2, let first = recursive.first, first != pattern.count - 1 {
            report(match.position, Message.storageRecursiveNotLast())
        }
        let scope = scope(match.functions, parent: parent, variables: names)
        for allow in match.allows {
            if let condition = allow.condition { check(condition, names, scope) }
        }
        if !match.allows.isEmpty, recursive.count <= 1 {
            compiled.append(StorageCompiledMatch(pattern: pattern, allows: match.allows, scope: scope))
        }
        for child in match.matches { visit(child, prefix: pattern, variables: names, scope: scope) }
    }

    private mutating func check(_ expression: StorageExpression, _ names: Set<String>, _ scope: StorageFunctionScope) {
        switch expression.kind {
        case .null, .bool, .int, .float, .string, .bytes: break
        case .identifier(let name):
            guard !names.contains(name), name != "request", name != "resource" else { return }
            let candidates = Array(names) + ["request", "resource"]
            report(
                expression.position,
                Message.storageUnknownVariable(name, suggestion: Suggestion.closest(to: name, among: candidates))
            )
        case .member(let base, _): check(base, names, scope)
        case .index(let base, let key):
            check(base, names, scope)
            check(key, names, scope)
        case .slice(let base, let from, let to):
            check(base, names, scope)
            if let from { check(from, names, scope) }
            if let to { check(to, names, scope) }
        case .call(let callee, let arguments):
            for argument in arguments { check(argument, names, scope) }
            checkCall(callee, arguments, names, scope, at: expression.position)
        case .not(let operand), .negate(let operand), .isType(let operand, _): check(operand, names, scope)
        case .binary(_, let left, let right), .and(let left, let right), .or(let left, let right):
            check(left, names, scope)
            check(right, names, scope)
        case .conditional(let condition, let then, let otherwise):
            check(condition, names, scope)
            check(then, names, scope)
            check(otherwise, names, scope)
        case .list(let items): for item in items { check(item, names, scope) }
        case .map(let entries):
            for (key, value) in entries {
                check(key, names, scope)
                check(value, names, scope)
            }
        case .path(let parts):
            for case .interpolation(let inner) in parts { check(inner, names, scope) }
        }
    }

    private mutating func checkCall(
        _ callee: StorageExpression,
        _ arguments: [StorageExpression],
        _ names: Set<String>,
        _ scope: StorageFunctionScope,
        at position: SourcePosition
    ) {
        switch callee.kind {
        case .identifier(let name):
            if let (function, declared) = scope.lookup(name) {
                if function.parameters.count != arguments.count {
                    report(
                        position,
                        Message.storageArity(name, expected: function.parameters.count, found: arguments.count)
                    )
                }
                if let currentFunction { calls[currentFunction, default: []].insert(key(declared, name)) }
            } else if let range = StorageRuleEvaluator.globals[name] {
                if !range.contains(arguments.count) {
                    report(position, Message.storageMethodArity(name, range, found: arguments.count))
                }
            } else if ["get", "exists", "getAfter", "existsAfter"].contains(name) {
                report(position, Message.storageFirestoreFunction(name))
            } else {
                let candidates = scope.visibleNames + Array(StorageRuleEvaluator.globals.keys)
                report(
                    position,
                    Message.storageUnknownFunction(name, suggestion: Suggestion.closest(to: name, among: candidates))
                )
            }
        case .member(let base, let name):
            if case .identifier("firestore") = base.kind, !names.contains("firestore") {
                report(position, Message.storageFirestoreFunction(name))
                return
            }
            if case .identifier(let namespace) = base.kind, !names.contains(namespace),
                let functions = StorageRuleEvaluator.namespaced[namespace]
            {
                guard let range = functions[name] else {
                    let suggestion = Suggestion.closest(to: name, among: Array(functions.keys)).map {
                        "\(namespace).\($0)"
                    }
                    report(position, Message.storageUnknownFunction("\(namespace).\(name)", suggestion: suggestion))
                    return
                }
                if !range.contains(arguments.count) {
                    report(position, Message.storageMethodArity("\(namespace).\(name)", range, found: arguments.count))
                }
                if namespace == "database" { usesDatabase = true }
                return
            }
            check(base, names, scope)
            guard let range = StorageRuleEvaluator.methods[name] else {
                let suggestion = Suggestion.closest(to: name, among: Array(StorageRuleEvaluator.methods.keys))
                report(position, Message.storageUnknownMethodCall(name, suggestion: suggestion))
                return
            }
            if !range.contains(arguments.count) {
                report(position, Message.storageMethodArity(name, range, found: arguments.count))
            }
            if ["matches", "replace", "split"].contains(name), case .string(let pattern)? = arguments.first?.kind {
                do {
                    let regex = try RuleRegex(rulesPattern: pattern, fullMatch: name == "matches")
                    regexes.add(regex, pattern, anchored: name == "matches")
                } catch {
                    report(arguments[0].position, Message.storageBadRegex(error.detail))
                }
            }
        default:
            check(callee, names, scope)
            report(position, Message.storageNotCallable(callee.text))
        }
    }

    /// Reports every function that can reach itself through calls.
    private mutating func checkRecursion() {
        for start in calls.keys.sorted() {
            var seen: Set<String> = []
            var stack = Array(calls[start] ?? [])
            while let next = stack.popLast() {
                if next == start {
                    if let position = functionPositions[start] {
                        report(position, Message.storageRecursion(String(start.split(separator: ":").last ?? "")))
                    }
                    break
                }
                if seen.insert(next).inserted { stack += calls[next] ?? [] }
            }
        }
    }
}
