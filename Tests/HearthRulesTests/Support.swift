import HearthCore
import Testing

@testable import HearthRules

/// Parses JSON into a node (test input is always valid).
func tree(_ json: String) -> Node? {
    try! TreeParser.parse(json, at: .root).node
}

func path(_ text: String) -> DataPath {
    try! DataPath.parse(text)
}

/// Compiles rules that must compile; records the diagnostics otherwise.
func compile(_ rules: String, sourceLocation: SourceLocation = #_sourceLocation) -> RuleProgram? {
    switch RulesDocument.compile(source: rules, fileName: "test.rules.json") {
    case .success(let program): return program
    case .failure(let diagnostics):
        Issue.record("rules did not compile:\n\(diagnostics)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The rendered diagnostics of rules that must not compile.
func diagnostics(_ rules: String) -> String? {
    switch RulesDocument.compile(source: rules, fileName: "test.rules.json") {
    case .success: return nil
    case .failure(let diagnostics): return diagnostics.description
    }
}

func auth(_ uid: String?, token: JSONValue = .object([])) -> RuleAuth? {
    uid.map { RuleAuth(uid: $0, provider: "password", token: token) }
}

/// Escapes an expression for a JSON string.
func jsonString(_ s: String) -> String {
    var out: [UInt8] = []
    JSONRenderer.appendString(s, into: &out)
    return String(decoding: out, as: UTF8.self)
}

/// Runs a test-file JSON document through the runner and returns the report.
func runFixture(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> RuleTestRunner.Report? {
    let runner = RuleTestRunner(readFile: { _ in throw RuleInputError("no files in tests") })
    do {
        return try runner.run(testFile: text)
    } catch {
        Issue.record("fixture failed: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The cases of a fixture, as test arguments (the rules and defaults stay in the fixture).
struct FixtureCase: CustomTestStringConvertible, Sendable {
    let fixture: String
    let index: Int
    let name: String
    var testDescription: String { name }

    static func all(_ fixture: String) -> [FixtureCase] {
        let document = try! JSONParser.parse(fixture, allowComments: true)
        return document["cases"]!.arrayValue!.enumerated().map { i, c in
            FixtureCase(fixture: fixture, index: i, name: c["name"]?.stringValue ?? "case \(i + 1)")
        }
    }

    /// Runs this one case against the fixture's rules.
    func run(sourceLocation: SourceLocation = #_sourceLocation) {
        let document = try! JSONParser.parse(fixture, allowComments: true)
        guard let program = compile(JSONText.render(document["rules"]!), sourceLocation: sourceLocation) else { return }
        do {
            let testCase = try RuleTestCase(json: document["cases"]![index]!, defaults: document, index: index)
            let result = try testCase.run(program)
            #expect(result.passed, "\(result)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("bad case: \(error)", sourceLocation: sourceLocation)
        }
    }
}

extension JSONValue {
    subscript(index: Int) -> JSONValue? {
        guard case .array(let a) = self, index < a.count else { return nil }
        return a[index]
    }
}
