import Foundation
import Testing

/// `hearth` as a process: help, usage errors and their exit codes.
@Suite("Command line")
struct CommandLineTests {
    @Test func helpListsTheSubcommands() async throws {
        let result = try await HearthProcess.run(["--help"])
        #expect(result.status == 0)
        for word in ["serve", "import", "export"] {
            #expect(result.stdout.contains(word), "help lacks '\(word)': \(result.stdout)")
        }
    }

    @Test func serveHelpNamesEveryFlagAndVariable() async throws {
        let result = try await HearthProcess.run(["serve", "--help"])
        #expect(result.status == 0)
        let expected = [
            "--host", "--port", "--data", "--rules", "--seed", "--admin-secret", "--jwt-secret", "--tls-cert",
            "--tls-key", "--emulator", "--sync", "--cors-origin", "--log-level", "HEARTH_PORT", "HEARTH_ADMIN_SECRET",
        ]
        for word in expected {
            #expect(result.stdout.contains(word), "serve --help lacks '\(word)'")
        }
    }

    @Test func serveHelpNamesTheConnectionAndBodyLimits() async throws {
        let result = try await HearthProcess.run(["serve", "--help"])
        #expect(result.status == 0)
        let expected = [
            "--header-timeout", "HEARTH_HEADER_TIMEOUT", "--idle-timeout", "HEARTH_IDLE_TIMEOUT",
            "--websocket-auth-timeout", "HEARTH_WEBSOCKET_AUTH_TIMEOUT", "--max-connections", "HEARTH_MAX_CONNECTIONS",
            "--max-body-bytes", "HEARTH_MAX_BODY_BYTES", "--max-body-memory", "HEARTH_MAX_BODY_MEMORY",
            "--liveness-timeout", "HEARTH_LIVENESS_TIMEOUT", "--project-id", "HEARTH_PROJECT_ID",
        ]
        for word in expected {
            #expect(result.stdout.contains(word), "serve --help lacks '\(word)'")
        }
    }

    struct UsageCase: CustomTestStringConvertible, Sendable {
        var id: String
        var arguments: [String]
        var environment: [String: String] = [:]
        var message: String
        var testDescription: String { id }
    }

    static let usageCases: [UsageCase] = [
        .init(id: "unknown flag", arguments: ["serve", "--bogus"], message: "Unknown option '--bogus'"),
        .init(id: "port not a number", arguments: ["serve", "--port", "abc"], message: "'abc'"),
        .init(id: "port out of range", arguments: ["serve", "--port", "70000"], message: "'70000'"),
        .init(id: "env port", arguments: ["serve"], environment: ["HEARTH_PORT": "x1"], message: "HEARTH_PORT"),
        .init(id: "sync mode", arguments: ["serve", "--sync", "sometimes"], message: "'sometimes'"),
        .init(id: "env sync", arguments: ["serve"], environment: ["HEARTH_SYNC": "never"], message: "HEARTH_SYNC"),
        .init(id: "tls half", arguments: ["serve", "--tls-cert", "c.pem"], message: "--tls-key"),
        .init(id: "log level", arguments: ["serve", "--log-level", "loud"], message: "'loud'"),
        .init(id: "import without file", arguments: ["import"], message: "Missing expected argument"),
        .init(id: "export format", arguments: ["export", "--format", "xml"], message: "'xml'"),
        .init(id: "bad path", arguments: ["export", "--path", "/a.b"], message: "'/a.b'"),
    ]

    @Test(arguments: usageCases)
    func usageErrorsExit64(_ usage: UsageCase) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await HearthProcess.run(
            usage.arguments,
            environment: usage.environment,
            directory: directory.url,
            timeout: .seconds(30)
        )
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("Error:"))
        #expect(result.stderr.contains(usage.message), "stderr: \(result.stderr)")
    }

    @Test func importOfAMissingFileFailsWithExit1() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await HearthProcess.run(
            ["import", "missing.json", "--data", directory.appending("data").path],
            directory: directory.url
        )
        #expect(result.status == 1)
        #expect(result.stderr.contains("Error: Cannot read 'missing.json'"), "stderr: \(result.stderr)")
    }

    @Test func exportOfAMissingDataDirectoryFailsWithExit1() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await HearthProcess.run(["export", "--data", "nowhere"], directory: directory.url)
        #expect(result.status == 1)
        #expect(result.stderr.contains("Error: There is no Hearth data directory at 'nowhere'"))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("nowhere").path))
    }
}
