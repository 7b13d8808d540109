import Foundation
import Testing

/// `hearth rules check` and `hearth rules test` as processes: output and exit codes.
struct RulesCommandTests {
    @Test func checkPrintsEveryDiagnosticWithACaretAndExits1() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.appending("bad.rules.json")
        try """
        {
          "rules": {
            ".read": "auht != null",
            "x": { ".write": "data.vall() == 1" }
          }
        }
        """.write(to: file, atomically: true, encoding: .utf8)
        let result = try await HearthProcess.run(["rules", "check", "bad.rules.json"], directory: directory.url)
        #expect(result.status == 1)
        let expected = """
            bad.rules.json:3:15: unknown variable 'auht'; did you mean 'auth'?
             |     ".read": "auht != null",
             | ..............^
            bad.rules.json:4:28: unknown method 'vall' on a snapshot; did you mean 'val'?
            """
        #expect(result.stderr.contains(expected), "stderr: \(result.stderr)")
    }

    @Test func checkAcceptsTheShippedRules() async throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("rules")
        let result = try await HearthProcess.run(["rules", "check", "database.rules.json"], directory: shipped)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("database.rules.json: ok"))
    }

    @Test func testRunsTheShippedCasesAndCountsThem() async throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("rules")
        let result = try await HearthProcess.run(
            ["rules", "test", "tests/database.rules.test.json"],
            directory: shipped
        )
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
        // One `"expected"` per case.
        let cases =
            try String(
                contentsOf: shipped.appendingPathComponent("tests/database.rules.test.json"),
                encoding: .utf8
            ).components(separatedBy: "\"expected\":").count - 1
        #expect(cases >= 60)
        #expect(result.stdout.contains("\(cases) passed, 0 failed"), "stdout: \(result.stdout)")
    }

    @Test func aFailingCaseExits1() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try """
        {"rules": {"rules": {".read": "auth != null"}},
         "cases": [{"name": "anonymous reads", "op": "read", "path": "/", "expected": "allow"},
                   {"name": "alice reads", "op": "read", "path": "/", "auth": {"uid": "alice"}, "expected": "allow"}]}
        """.write(to: directory.appending("cases.json"), atomically: true, encoding: .utf8)
        let result = try await HearthProcess.run(["rules", "test", "cases.json"], directory: directory.url)
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL anonymous reads"))
        #expect(result.stdout.contains("1 passed, 1 failed"))
    }
}
