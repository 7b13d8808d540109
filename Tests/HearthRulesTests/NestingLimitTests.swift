import Testing

@testable import HearthRules

/// Expressions deeper than `RuleParser.maxDepth` (256) are a syntax error, not a stack
/// overflow: checking, optimizing and evaluating recurse on an expression's tree, and parsing
/// recurses on its parentheses and prefix operators. Before the bound, a rules file with
/// 100,000 nested parentheses crashed the server that loaded it.
struct NestingLimitTests {
    static func rules(_ expression: String) -> String {
        #"{"rules": {".read": \#(jsonString(expression))}}"#
    }

    static let tooDeep: [(String, String)] = [
        ("parentheses", String(repeating: "(", count: 100_000) + "true" + String(repeating: ")", count: 100_000)),
        ("negations", String(repeating: "!", count: 100_000) + "true"),
        ("an || chain", Array(repeating: "true", count: 20_000).joined(separator: " || ")),
        ("a child() chain", "root" + String(repeating: ".child('a')", count: 20_000) + ".exists()"),
        ("nested arrays", String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + " != null"),
        ("nested conditionals", String(repeating: "auth != null ? true : ", count: 20_000) + "false"),
        ("one past the bound", String(repeating: "!", count: 256) + "true"),
        // Found by `scripts/fuzz/run.sh rules-document` (Fuzz/Corpus/rules-document/
        // crash-deep-parentheses): 454 parentheses, nested through calls, overflowed the stack.
        ("the fuzzer's crasher", Self.fuzzerCrasher),
    ]

    static let fuzzerCrasher =
        "aut((((((((((((((((((((((((((((((((( (((((((((((((((((((((( ((((((((((((((((((((((((((((((((((((((((((((((((((( (((((((((((((((((((((( ((((((((((((((((((((((((((((((((((((((((((((( ((((((((((oeeeeeee((e(p(((((((( h(((((((((((((((((((((((((((( (((((((((((((((((((((( ((((((((((((((((((((((((((((((((((((((((((((( ((((((((((oeeeeee((((((((((((((((((( ((((((((((oeeeeeee((e(p(((((((( h(((((((((((((((((((((((((((( (((((((((((((((((((((( ((((((((((((((((((((((((((((((((((((((((((((( ((((((((((oeeeeeeeeee((((( ((((l() == 2"

    @Test(arguments: tooDeep.map(\.0))
    func tooDeepIsASyntaxError(_ name: String) throws {
        let expression = try #require(Self.tooDeep.first { $0.0 == name }?.1)
        let found = diagnostics(Self.rules(expression))
        #expect(
            found?.contains("expression nested too deeply: at most 256 levels") == true,
            "\(found?.prefix(300) ?? "")"
        )
    }

    @Test func deepButWithinTheBoundCompilesAndEvaluates() throws {
        let chain = Array(repeating: "auth == null", count: 200).joined(separator: " && ")
        let program = try #require(compile(Self.rules(chain)))
        let data = RuleMemorySource(root: tree("{}"))
        #expect(program.canRead(path: path("/"), auth: nil, root: data, now: 0).allowed)
        #expect(!program.canRead(path: path("/"), auth: auth("ada"), root: data, now: 0).allowed)
        let negations = String(repeating: "!", count: 254) + "true"
        #expect(compile(Self.rules(negations)) != nil)
    }
}
