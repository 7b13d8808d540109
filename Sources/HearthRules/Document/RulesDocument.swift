internal import HearthCore

/// A rules document (`{"rules": {...}}` with comments) compiled into a `RuleProgram`: parsed,
/// every expression parsed and type-checked, every problem reported at once, sorted.
public enum RulesDocument {
    /// Compiles a rules file.
    /// - Parameters:
    ///   - source: the file's text, kept verbatim.
    ///   - fileName: the name diagnostics start with (`rules/database.rules.json`).
    public static func compile(
        source: String,
        fileName: String = "database.rules.json"
    ) -> Result<
        RuleProgram, RulesDiagnostics
    > {
        let rulesSource = RulesSource(text: source, fileName: fileName)
        var compiler = Compiler(source: rulesSource)
        let json: RulesJSON
        do {
            json = try RulesJSONParser.parse(source)
        } catch {
            compiler.report(error.position, error.message)
            return .failure(RulesDiagnostics(compiler.diagnostics))
        }
        let root = compiler.document(json)
        if !compiler.diagnostics.isEmpty { return .failure(RulesDiagnostics(compiler.diagnostics)) }
        return .success(RuleProgram(root: root ?? .empty, indexes: compiler.indexes, source: rulesSource))
    }

    /// Compiles, throwing `RulesDiagnostics` on error.
    public static func compiled(
        source: String,
        fileName: String = "database.rules.json"
    ) throws(RulesDiagnostics)
        -> RuleProgram
    {
        try compile(source: source, fileName: fileName).get()
    }

    private struct Compiler {
        let source: RulesSource
        var diagnostics: [RulesDiagnostic] = []
        var indexes: [IndexSpec] = []

        init(source: RulesSource) {
            self.source = source
        }

        mutating func report(_ position: SourcePosition, _ message: String) {
            diagnostics.append(
                RulesDiagnostic(
                    fileName: source.fileName,
                    position: position,
                    message: message,
                    sourceLine: source.line(position.line)
                )
            )
        }

        mutating func document(_ json: RulesJSON) -> RuleNode? {
            guard case .object(let members) = json.kind else {
                report(json.position, Message.documentNotObject())
                return nil
            }
            var rules: RulesJSON?
            for member in members {
                if member.key == "rules" {
                    if rules != nil { report(member.keyPosition, Message.jsonDuplicateKey("rules")) }
                    rules = member.value
                } else {
                    report(member.keyPosition, Message.unknownTopLevelKey(member.key))
                }
            }
            guard let rules else {
                report(json.position, Message.rulesMissing())
                return nil
            }
            return location(rules, key: "rules", segments: [], wildcards: [])
        }

        static func describe(_ segments: [IndexSpec.Segment]) -> String {
            "/rules"
                + segments.map { segment -> String in
                    switch segment {
                    case .key(let key): return "/" + key.string
                    case .wildcard(let name): return "/" + name
                    }
                }.joined()
        }

        static func isWildcardName(_ name: String) -> Bool {
            let rest = name.unicodeScalars.dropFirst()
            return !rest.isEmpty
                && rest.allSatisfy {
                    $0 == "_" || $0 == "-" || ("a"..."z").contains($0) || ("A"..."Z").contains($0)
                        || ("0"..."9").contains($0)
                }
        }

        mutating func location(
            _ json: RulesJSON,
            key: String,
            segments: [IndexSpec.Segment],
            wildcards: [String]
        ) -> RuleNode? {
            guard case .object(let members) = json.kind else {
                report(json.position, Message.locationNotObject(key, found: json.kindDescription))
                return nil
            }
            var rules: [RuleKind: CompiledRule] = [:]
            var children: [ChildKey: RuleNode] = [:]
            var wildcard: (name: String, node: RuleNode)?
            var firstWildcard: String?
            var seen = Set<String>()
            for member in members {
                if !seen.insert(member.key).inserted {
                    report(member.keyPosition, Message.jsonDuplicateKey(member.key))
                    continue
                }
                let name = member.key
                if name.hasPrefix(".") {
                    switch name {
                    case ".read", ".write", ".validate":
                        let kind = RuleKind(rawValue: name)!
                        if let rule = compileRule(member.value, kind: kind, segments: segments, wildcards: wildcards) {
                            rules[kind] = rule
                        }
                    case ".indexOn":
                        indexOn(member.value, segments: segments)
                    default:
                        let suggestion = Suggestion.closest(
                            to: name,
                            among: [".read", ".write", ".validate", ".indexOn"]
                        )
                        report(member.keyPosition, Message.unknownRuleKey(name, suggestion: suggestion))
                    }
                } else if name.hasPrefix("$") {
                    guard Self.isWildcardName(name) else {
                        report(member.keyPosition, Message.invalidWildcardName(name))
                        continue
                    }
                    if let firstWildcard {
                        report(member.keyPosition, Message.twoWildcards(firstWildcard, name))
                        continue
                    }
                    firstWildcard = name
                    if wildcards.contains(name) { report(member.keyPosition, Message.wildcardShadows(name)) }
                    if segments.count >= KeyValidator.maxDepth {
                        report(member.keyPosition, Message.tooDeep())
                        continue
                    }
                    if let node = location(
                        member.value,
                        key: name,
                        segments: segments + [.wildcard(name)],
                        wildcards: wildcards + [name]
                    ) {
                        wildcard = (name, node)
                    }
                } else {
                    guard KeyValidator.problem(name) == nil else {
                        report(member.keyPosition, Message.invalidKey(name))
                        continue
                    }
                    if segments.count >= KeyValidator.maxDepth {
                        report(member.keyPosition, Message.tooDeep())
                        continue
                    }
                    let childKey = ChildKey(name)
                    if let node = location(
                        member.value,
                        key: name,
                        segments: segments + [.key(childKey)],
                        wildcards: wildcards
                    ) {
                        children[childKey] = node
                    }
                }
            }
            return RuleNode(
                read: rules[.read],
                write: rules[.write],
                validate: rules[.validate],
                children: children,
                wildcardName: wildcard?.name,
                wildcard: wildcard?.node
            )
        }

        mutating func compileRule(
            _ json: RulesJSON,
            kind: RuleKind,
            segments: [IndexSpec.Segment],
            wildcards: [String]
        ) -> CompiledRule? {
            let rulePath = Self.describe(segments) + "/" + kind.rawValue
            switch json.kind {
            case .bool(let b):
                return CompiledRule(
                    kind: kind,
                    expression: .constant(.bool(b)),
                    source: b ? "true" : "false",
                    rulePath: rulePath,
                    position: json.position,
                    constant: b
                )
            case .string(let text, let positions):
                let scalars = Array(text.unicodeScalars)
                let stringStart = json.position
                func position(_ offset: Int) -> SourcePosition {
                    if offset < positions.count { return positions[offset] }
                    if let last = positions.last { return SourcePosition(line: last.line, column: last.column + 1) }
                    return SourcePosition(line: stringStart.line, column: stringStart.column + 1)
                }
                let syntax: RuleSyntax
                do {
                    syntax = try RuleParser.parse(scalars)
                } catch {
                    report(position(error.offset), error.message)
                    return nil
                }
                // The checker reports through a closure; collect, then map offsets to positions.
                let box = ProblemBox()
                let checker = RuleChecker(kind: kind, wildcards: wildcards) { box.items.append(($0, $1)) }
                let expression = checker.check(rule: syntax)
                let problems = box.items
                for (offset, message) in problems { report(position(offset), message) }
                if !problems.isEmpty { return nil }
                return CompiledRule(
                    kind: kind,
                    expression: expression,
                    source: text,
                    rulePath: rulePath,
                    position: position(0),
                    constant: nil,
                    sourceMap: RuleSourceMap(positions)
                )
            default:
                report(json.position, Message.ruleValueType(kind.rawValue, found: json.kindDescription))
                return nil
            }
        }

        mutating func indexOn(_ json: RulesJSON, segments: [IndexSpec.Segment]) {
            var entries: [(String, SourcePosition)] = []
            switch json.kind {
            case .string(let s, _):
                entries = [(s, json.position)]
            case .array(let elements):
                for element in elements {
                    guard case .string(let s, _) = element.kind else {
                        report(
                            element.position,
                            Message.indexOnType(found: "an array containing \(element.kindDescription)")
                        )
                        continue
                    }
                    entries.append((s, element.position))
                }
            default:
                report(json.position, Message.indexOnType(found: json.kindDescription))
                return
            }
            for (entry, position) in entries {
                if entry == ".value" {
                    append(IndexSpec(location: segments, indexed: .value))
                    continue
                }
                let parts = entry.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
                guard !parts.isEmpty, parts.count <= KeyValidator.maxDepth,
                    parts.allSatisfy({ KeyValidator.problem($0) == nil })
                else {
                    report(position, Message.indexOnEntry(entry))
                    continue
                }
                append(IndexSpec(location: segments, indexed: .child(DataPath(keys: parts.map(ChildKey.init)))))
            }
        }

        mutating func append(_ spec: IndexSpec) {
            if !indexes.contains(spec) { indexes.append(spec) }
        }
    }
}

/// Collects checker problems (the checker reports through an escaping closure).
private final class ProblemBox {
    var items: [(Int, String)] = []
}
