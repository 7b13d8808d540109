import Foundation
import Testing

@testable import HearthRules

/// The shipped `rules/storage.rules` against its cases, `rules/tests/storage.rules.test.json`
/// (what `hearth rules test` runs).
@Suite struct ShippedStorageRulesTests {
    @Test func theShippedCasesPass() throws {
        let testsDirectory = shippedRulesDirectory.appendingPathComponent("tests")
        let text = try String(
            contentsOf: testsDirectory.appendingPathComponent("storage.rules.test.json"),
            encoding: .utf8
        )
        #expect(StorageRuleTestRunner.namesStorageRules(text))
        let runner = StorageRuleTestRunner { path in
            try String(contentsOf: testsDirectory.appendingPathComponent(path), encoding: .utf8)
        }
        let report = try runner.run(testFile: text)
        #expect(report.results.count >= 20)
        #expect(report.failed == 0, "\(report)")
    }

    @Test func aFailingCaseIsReportedWithTheTrace() throws {
        let text = """
            {"rules": "rules_version = '2'; service firebase.storage { match /b/{bucket}/o/{f} { allow read: if false; } }",
             "cases": [{"name": "reads", "method": "get", "path": "x", "expected": "allow"}]}
            """
        let report = try StorageRuleTestRunner { _ in "" }.run(testFile: text)
        #expect(report.failed == 1)
        #expect(report.description.contains("FAIL reads: expected allow, got deny"))
        #expect(report.description.contains("allow read: if false"))
    }
}
