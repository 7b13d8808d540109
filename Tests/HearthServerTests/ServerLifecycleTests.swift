import Foundation
import HearthServer
import HearthTestSupport
import Logging
import Testing

/// Start, restart over the same data, and refusal of a broken rules file.
struct ServerLifecycleTests {
    @Test func dataSurvivesRestartAndSeedIsNotReimported() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-restart")
        defer { temporary.remove() }
        let directory = temporary.url
        let seed = directory.appendingPathComponent("seed.json")
        try #"{"seeded":true}"#.write(to: seed, atomically: true, encoding: .utf8)
        let configuration = HearthServerConfiguration(
            port: 0,
            dataDirectory: directory.appendingPathComponent("data").path,
            rulesFile: directory.appendingPathComponent("rules/database.rules.json").path,
            seedFile: seed.path,
            adminSecret: TestServer.adminSecret
        )
        var logger = Logger(label: "test")
        logger.logLevel = .critical

        let first = try await HearthServer.start(configuration: configuration, logger: logger)
        let one = TestServer(port: first.port, directory: directory)
        try await one.put("/seeded", "null")
        try await one.put("/kept", "1")
        await first.shutdown()

        let second = try await HearthServer.start(configuration: configuration, logger: logger)
        let two = TestServer(port: second.port, directory: directory)
        let root = try await two.get("/")
        await second.shutdown()
        #expect(JSONCompare.equal(root, #"{"kept":1}"#))
    }

    @Test func brokenRulesFileRefusesToStart() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-badrules")
        defer { temporary.remove() }
        let directory = temporary.url
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("rules"),
            withIntermediateDirectories: true
        )
        let rules = directory.appendingPathComponent("rules/database.rules.json")
        try #"{"rules": {"a": {".indexOn": 5}}}"#.write(to: rules, atomically: true, encoding: .utf8)
        let configuration = HearthServerConfiguration(
            port: 0,
            dataDirectory: directory.appendingPathComponent("data").path,
            rulesFile: rules.path,
            seedFile: nil,
            adminSecret: TestServer.adminSecret
        )
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        await #expect(throws: HearthServerError.self) {
            let server = try await HearthServer.start(configuration: configuration, logger: logger)
            await server.shutdown()
        }
    }
}

/// The shipped seed imports through the server's start-up path.
struct ShippedSeedTests {
    @Test func firesideSeedImports() async throws {
        let seed = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("seed/fireside.json")
        try #require(FileManager.default.fileExists(atPath: seed.path))
        try await TestServer.with(
            prepare: { configuration, _ in configuration.seedFile = seed.path },
            run: { server in
                let shallow = try await server.get("/", query: "&shallow=true")
                #expect(shallow.hasPrefix("{"), "\(shallow.prefix(200))")
                #expect(shallow != "null")
            }
        )
    }
}
