/// A compiled storage rules file (`rules/storage.rules`): checked at load with every problem's
/// line and column, then asked per request. Every `match` whose full path (with the enclosing
/// ones) matches the request's `/b/{bucket}/o/{name}` contributes its `allow`s for the request's
/// method; the request is allowed when any of their conditions is true (an error counts as
/// false). No matching `allow`: denied.
public struct StorageRules: Sendable {
    public let version: Int
    let matches: [StorageCompiledMatch]
    /// Whether any rule calls `database.get` or `database.exists` (the server then takes a
    /// snapshot of the bucket's database for each decision).
    public let usesDatabase: Bool
    /// The literal patterns of `matches`, `replace` and `split`, compiled at load.
    let regexes: StorageRegexes

    /// Rules that allow nothing (what a server without a rules file enforces, besides the admin).
    public static let denyAll = StorageRules(version: 2, matches: [], usesDatabase: false)

    /// Compiles a rules file.
    public static func compile(
        source text: String,
        fileName: String = "storage.rules"
    ) -> Result<StorageRules, RulesDiagnostics> {
        let source = RulesSource(text: text, fileName: fileName)
        var parser = StorageRulesParser(text)
        let syntax: StorageRulesSyntax
        do {
            syntax = try parser.file()
        } catch {
            let position = parser.position(error.offset)
            return .failure(
                RulesDiagnostics([
                    RulesDiagnostic(
                        fileName: fileName,
                        position: position,
                        message: error.message,
                        sourceLine: source.line(position.line)
                    )
                ])
            )
        }
        var checker = StorageRulesChecker(syntax: syntax)
        let rules = checker.run()
        guard checker.problems.isEmpty else {
            return .failure(
                RulesDiagnostics(
                    checker.problems.map { problem in
                        RulesDiagnostic(
                            fileName: fileName,
                            position: problem.position,
                            message: problem.message,
                            sourceLine: source.line(problem.position.line)
                        )
                    }
                )
            )
        }
        return .success(rules)
    }

    init(
        version: Int,
        matches: [StorageCompiledMatch],
        usesDatabase: Bool,
        regexes: StorageRegexes = StorageRegexes()
    ) {
        self.version = version
        self.matches = matches
        self.usesDatabase = usesDatabase
        self.regexes = regexes
    }

    /// Whether deciding one of `methods` on `name` in `bucket` may read the database: some
    /// `allow` of a match that covers the name, for one of the methods, has a condition that
    /// calls `database.get/exists` (directly or through its functions). When not, the decision
    /// needs no snapshot of the database.
    public func readsDatabase(_ methods: [StorageMethod], bucket: String, name: String) -> Bool {
        guard usesDatabase else { return false }
        let segments = StorageRuleRequest.segments(bucket: bucket, name: name)
        for match in matches where match.readingDatabase.contains(true) {
            let relevant = zip(match.allows, match.readingDatabase).contains { allow, reads in
                reads && !allow.methods.isDisjoint(with: methods)
            }
            if relevant, match.bind(segments, version: version) != nil { return true }
        }
        return false
    }

    /// Judges `request`. `database` serves `database.get/exists` (nil: they are errors).
    /// `recording` (the simulator) keeps the value of every part of each condition that ran
    /// (`StorageRuleTraceEntry.evaluation`).
    public func decide(
        _ request: StorageRuleRequest,
        database: (any StorageRulesDatabase)? = nil,
        recording: Bool = false
    ) -> StorageRuleDecision {
        if request.method == .list, version < 2 {
            return StorageRuleDecision(allowed: false, trace: [])
        }
        let segments = request.segments
        let evaluator = StorageRuleEvaluator(
            request: request.value,
            resource: request.resource?.value ?? .null,
            database: database,
            regexes: regexes
        )
        let recorder = recording ? StorageEvaluationRecording() : nil
        evaluator.recording = recorder
        var trace: [StorageRuleTraceEntry] = []
        for match in matches {
            let relevant = match.allows.filter { $0.methods.contains(request.method) }
            guard !relevant.isEmpty, let bindings = match.bind(segments, version: version) else { continue }
            let environment = StorageRuleEvaluator.Environment(
                variables: bindings.mapValues(StorageRuleValue.string),
                scope: match.scope
            )
            for allow in relevant {
                let result = allow.condition.map { evaluator.evaluate($0, environment) } ?? .bool(true)
                let outcome: StorageRuleTraceEntry.Outcome
                switch result {
                case .bool(true): outcome = .allowed
                case .error(let message): outcome = .error(message)
                case .bool(false): outcome = .denied
                case let other: outcome = .error("the condition is \(other.typeName), not bool")
                }
                trace.append(
                    StorageRuleTraceEntry(
                        match: match.text,
                        rule: "allow " + allow.words.joined(separator: ", "),
                        expression: allow.condition?.text ?? "",
                        position: allow.position,
                        bindings: bindings.keys.sorted().map { ($0, bindings[$0]!) },
                        outcome: outcome,
                        shown: result.shown,
                        evaluation: allow.condition == nil ? nil : recorder?.takeCondition()
                    )
                )
                if outcome == .allowed {
                    return StorageRuleDecision(
                        allowed: true,
                        trace: trace,
                        evaluationTruncated: recorder?.truncated ?? false
                    )
                }
            }
        }
        return StorageRuleDecision(allowed: false, trace: trace, evaluationTruncated: recorder?.truncated ?? false)
    }
}

/// The functions a scope declares, and the scope around it.
final class StorageFunctionScope: Sendable {
    let functions: [String: StorageFunctionSyntax]
    let parent: StorageFunctionScope?

    init(functions: [String: StorageFunctionSyntax], parent: StorageFunctionScope?) {
        self.functions = functions
        self.parent = parent
    }

    /// The function `name` visible here, with the scope it was declared in.
    func lookup(_ name: String) -> (StorageFunctionSyntax, StorageFunctionScope)? {
        if let function = functions[name] { return (function, self) }
        return parent?.lookup(name)
    }

    var visibleNames: [String] { Array(functions.keys) + (parent?.visibleNames ?? []) }
}

/// A `match` with its full path from the service down, its `allow`s and its functions.
struct StorageCompiledMatch: Sendable {
    let pattern: [StoragePatternSegment]
    let allows: [StorageAllowSyntax]
    let scope: StorageFunctionScope
    /// For each of `allows`, whether its condition may read the database (`StorageDatabaseUse`).
    var readingDatabase: [Bool] = []

    var text: String { "/" + pattern.map(\.text).joined(separator: "/") }

    /// The wildcards' values when the pattern matches all of `segments`; nil when it does not.
    /// A recursive wildcard takes what is left between the segments before and after it,
    /// joined by '/' (zero or more segments with rules_version '2', one or more with '1').
    func bind(_ segments: [String], version: Int) -> [String: String]? {
        var bindings: [String: String] = [:]
        func one(_ segment: StoragePatternSegment, _ value: String) -> Bool {
            switch segment {
            case .literal(let text): return text == value
            case .wildcard(let name):
                bindings[name] = value
                return true
            case .recursive: return false
            }
        }
        guard
            let recursive = pattern.firstIndex(where: { if case .recursive = $0 { return true } else { return false } })
        else {
            guard pattern.count == segments.count else { return nil }
            for (segment, value) in zip(pattern, segments) where !one(segment, value) { return nil }
            return bindings
        }
        let before = pattern[..<recursive]
        let after = pattern[(recursive + 1)...]
        let minimum = version >= 2 ? 0 : 1
        guard segments.count >= before.count + after.count + minimum else { return nil }
        for (segment, value) in zip(before, segments) where !one(segment, value) { return nil }
        for (segment, value) in zip(after, segments.suffix(after.count)) where !one(segment, value) { return nil }
        let middle = segments[before.count..<(segments.count - after.count)]
        if let name = pattern[recursive].variable { bindings[name] = middle.joined(separator: "/") }
        return bindings
    }
}
