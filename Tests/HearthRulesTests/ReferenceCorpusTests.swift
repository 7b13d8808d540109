import HearthCore
import Testing

@testable import HearthRules

/// Runs Hearth's rules corpus (ReferenceCorpus*.swift) and checks that it covers every feature
/// of Firebase's reference.
struct ReferenceCorpusTests {
    static let expressionCases: [CorpusCase] =
        CorpusCase.variables + CorpusCase.queries + CorpusCase.snapshotMethods + CorpusCase.strings
        + CorpusCase.operators + CorpusCase.regularExpressions

    static let sources: Set<String> = [
        "reference", "regex", "conditions", "core-syntax", "observed", "firebase-tools#944", "targaryen#64", "issue 13",
    ]

    @Test(arguments: expressionCases)
    func expression(_ testCase: CorpusCase) throws {
        #expect(Self.sources.contains(testCase.source), "unknown source '\(testCase.source)'")
        let kind = testCase.write == nil ? ".read" : ".write"
        let rules = #"{"rules": {"items": {"$id": {"\#(kind)": \#(jsonString(testCase.rule))}}}}"#
        switch RulesDocument.compile(source: rules, fileName: "test.rules.json") {
        case .failure(let diagnostics):
            guard case .refused(let fragment) = testCase.expected else {
                Issue.record("refused at load:\n\(diagnostics)")
                return
            }
            #expect(diagnostics.description.contains(fragment), "\(diagnostics)")
        case .success(let program):
            if case .refused = testCase.expected {
                Issue.record("loaded, but Firebase refuses it at deploy")
                return
            }
            let outcome = try Self.outcome(program, testCase)
            switch testCase.expected {
            case .allow: #expect(outcome == .true)
            case .deny: #expect(outcome == .false)
            case .error: #expect(outcome.isError, "\(outcome)")
            case .refused: break
            }
        }
    }

    /// The outcome of the case's rule (from the decision's trace).
    static func outcome(_ program: RuleProgram, _ testCase: CorpusCase) throws -> RuleOutcome {
        let who = auth(testCase.signedIn ? "alice" : nil, token: expressionToken)
        let current = RuleMemorySource(root: tree(expressionData))
        let location = path("/items/a")
        let decision: RuleDecision
        if let write = testCase.write {
            let node = try TreeParser.parse(write, at: location).node
            decision = program.canWrite(
                path: location,
                auth: who,
                root: current,
                newRoot: RuleOverlaySource(base: current, writes: [(location, node)]),
                now: 1000,
                changedPaths: [location],
                trace: true
            )
        } else {
            let query = try testCase.query.map { try RuleQuery(json: JSONParser.parse($0)) }
            decision = program.canRead(path: location, auth: who, root: current, now: 1000, query: query, trace: true)
        }
        let entry = decision.trace.first { $0.rule == "/rules/items/$id/\(testCase.write == nil ? ".read" : ".write")" }
        return try #require(entry, "the rule did not run:\n\(decision)").outcome
    }

    static let documentCases = FixtureCase.all(referenceDocumentFixture)

    @Test(arguments: documentCases)
    func document(_ testCase: FixtureCase) {
        testCase.run()
    }

    @Test func indexOnIsCompiledIntoIndexes() {
        let program = compile(JSONText.render(try! JSONParser.parse(referenceDocumentFixture)["rules"]!))
        #expect(program?.indexes.map(\.description) == ["/users email"])
        #expect(diagnostics(#"{"rules": {"users": {".indexOn": 1}}}"#)?.contains("'.indexOn' must be") == true)
    }

    /// The features the document fixture covers, from its cases' "feature".
    static var documentFeatures: Set<String> {
        let document = try! JSONParser.parse(referenceDocumentFixture)
        return Set(document["cases"]!.arrayValue!.compactMap { $0["feature"]?.stringValue })
    }

    @Test func everyDocumentCaseCitesASource() {
        let document = try! JSONParser.parse(referenceDocumentFixture)
        for testCase in document["cases"]!.arrayValue! {
            let source = testCase["source"]?.stringValue ?? "none"
            #expect(Self.sources.contains(source), "'\(testCase["name"]?.stringValue ?? "?")' cites '\(source)'")
        }
    }

    @Test func everyReferenceFeatureHasCases() {
        let covered = Set(Self.expressionCases.map(\.feature)).union(Self.documentFeatures)
        let listed = Set(FirebaseReference.features)
        #expect(listed.subtracting(covered).sorted() == [], "features without a case")
        #expect(covered.subtracting(listed).sorted() == [], "cases naming a feature the reference does not list")
        #expect(FirebaseReference.features.count == listed.count, "a feature listed twice")
    }
}

extension RuleOutcome {
    var isError: Bool {
        if case .error = self { return true }
        return false
    }
}
