import Foundation
import Testing

/// `hearth rules check` and `hearth rules test` with storage rules (the other language).
struct StorageRulesCommandTests {
    static let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("rules")

    @Test func checkTakesStorageRulesAndNamesEachProblem() async throws {
        let good = try await HearthProcess.run(["rules", "check", "storage.rules"], directory: Self.shipped)
        #expect(good.status == 0 && good.stdout.contains("storage.rules: ok (storage rules"), "\(good.stderr)")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try "service firebase.storage {\n  match /x { allow raed: if true; }\n}\n".write(
            to: directory.appending("bad.rules"),
            atomically: true,
            encoding: .utf8
        )
        let bad = try await HearthProcess.run(["rules", "check", "bad.rules"], directory: directory.url)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("bad.rules:2:20: unknown method 'raed'; did you mean 'read'?"), "\(bad.stderr)")
    }

    @Test func testRunsTheShippedStorageCases() async throws {
        let result = try await HearthProcess.run(
            ["rules", "test", "tests/storage.rules.test.json"],
            directory: Self.shipped
        )
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stdout.contains("21 passed, 0 failed"), "\(result.stdout)")
    }
}
