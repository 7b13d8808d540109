public import HearthCore

/// Runs a storage rules test file (what `hearth rules test` reads when the rules it names are
/// storage rules; see docs/storage-rules.md):
///
///     {"rules": "../storage.rules" | "rules_version = '2'; service firebase.storage {...}",
///      "bucket": "hearth.appspot.com", "database": {...}, "auth": null, "now": 1700000000000,
///      "cases": [{"name": "...", "method": "get" | "list" | "create" | "update" | "delete",
///                 "path": "users/alice/a.png", "auth"?: {"uid": "alice"}, "resource"?: {...},
///                 "newResource"?: {"size": 1000, "contentType": "image/png"}, "database"?: {...},
///                 "expected": "allow" | "deny"}]}
///
/// `resource` and `newResource` take the object's fields (`name` defaults to `path`);
/// `database` is the default database's data that `database.get/exists` read.
public struct StorageRuleTestRunner {
    public var readFile: (String) throws -> String

    public init(readFile: @escaping (String) throws -> String) {
        self.readFile = readFile
    }

    /// Whether a test file's `rules` are storage rules: a path ending in `.rules`, or the text of
    /// one (it declares `service firebase.storage`).
    public static func namesStorageRules(_ testFile: String) -> Bool {
        guard let document = try? RulesJSONParser.parse(testFile).jsonValue, let rules = document["rules"]?.stringValue
        else { return false }
        return rules.hasSuffix(".rules") || rules.contains("firebase.storage")
    }

    /// The result of one case.
    public typealias CaseResult = RuleTestCaseResult<StorageRuleDecision>

    /// Every case's result, in file order.
    public typealias Report = RuleTestReport<StorageRuleDecision>

    public func run(
        testFile text: String,
        fileName: String = "storage.rules.test.json"
    ) throws(RuleTestRunner.Failure)
        -> Report
    {
        func failure(_ message: String, _ diagnostics: RulesDiagnostics? = nil) -> RuleTestRunner.Failure {
            RuleTestRunner.Failure(message: Message.testFile(message), diagnostics: diagnostics)
        }
        let document: JSONValue
        do {
            document = try RulesJSONParser.parse(text).jsonValue
        } catch {
            throw failure("\(fileName):\(error.position): \(error.message)")
        }
        guard let rulesValue = document["rules"]?.stringValue else {
            throw failure("'rules' must be a storage rules file's path or its text")
        }
        let source: String
        let rulesName: String
        if rulesValue.contains("firebase.storage") {
            (source, rulesName) = (rulesValue, fileName + "#rules")
        } else {
            do {
                source = try readFile(rulesValue)
            } catch {
                throw failure("cannot read rules file '\(rulesValue)': \(error)")
            }
            rulesName = rulesValue
        }
        let rules: StorageRules
        switch StorageRules.compile(source: source, fileName: rulesName) {
        case .success(let compiled): rules = compiled
        case .failure(let diagnostics): throw failure("the rules do not compile", diagnostics)
        }
        guard let cases = document["cases"]?.arrayValue else { throw failure("'cases' must be an array") }
        var results: [CaseResult] = []
        for (i, json) in cases.enumerated() {
            do {
                results.append(try run(json, defaults: document, index: i, rules: rules))
            } catch {
                throw failure("case \(i + 1): \(error.message)")
            }
        }
        return Report(results: results)
    }

    private func run(
        _ json: JSONValue,
        defaults: JSONValue,
        index: Int,
        rules: StorageRules
    ) throws(RuleInputError)
        -> CaseResult
    {
        guard case .object = json else { throw RuleInputError("a case must be an object") }
        let name = json["name"]?.stringValue ?? "case \(index + 1)"
        let request = try StorageRuleRequest(
            json: json,
            defaults: defaults,
            bucket: "hearth.appspot.com",
            now: 1_700_000_000_000,
            namingObjectsByPath: true
        )
        let expected: Bool
        switch json["expected"]?.stringValue {
        case "allow": expected = true
        case "deny": expected = false
        default: throw RuleInputError("'expected' must be \"allow\" or \"deny\"")
        }
        let database: StorageRulesTree
        do {
            database = try StorageRulesTree(json: json["database"] ?? defaults["database"] ?? .null)
        } catch {
            throw RuleInputError("'database' of '\(name)': \(error)")
        }
        return CaseResult(
            name: name,
            expectedAllow: expected,
            decision: rules.decide(request, database: database, recording: true)
        )
    }
}
