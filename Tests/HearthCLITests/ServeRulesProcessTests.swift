import Foundation
import Testing

/// `hearth serve` with a rules file that does not compile refuses to start and prints every
/// diagnostic.
struct ServeRulesProcessTests {
    @Test func anInvalidRulesFileStopsTheStartWithItsDiagnostics() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.appending("rules"), withIntermediateDirectories: true)
        try "{\n  \"rules\": {\n    \".read\": \"auht != null\"\n  }\n}\n".write(
            to: directory.appending("rules/database.rules.json"),
            atomically: true,
            encoding: .utf8
        )
        let result = try await HearthProcess.run(
            ["serve", "--port", "\(try FreePort.find())", "--data", "data", "--admin-secret", "x"],
            directory: directory.url,
            timeout: .seconds(30)
        )
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                """
                The rules file 'rules/database.rules.json' has errors:
                rules/database.rules.json:3:15: unknown variable 'auht'; did you mean 'auth'?
                 |     ".read": "auht != null"
                 | ..............^
                """
            ),
            "stderr: \(result.stderr)"
        )
        #expect(result.stderr.contains("Error: "), "stderr: \(result.stderr)")
    }
}
