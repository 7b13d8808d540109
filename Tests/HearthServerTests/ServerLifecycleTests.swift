import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Start, restart over the same data, and refusal of a broken rules file.
struct ServerLifecycleTests {
    @Test func dataSurvivesRestartAndSeedIsNotReimported() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-restart")
        defer { temporary.remove() }
        let directory = temporary.url
        let seed = directory.appendingPathComponent("seed.json")
        try #"{"seeded":true}"#.write(to: seed, atomically: true, encoding: .utf8)
        var configuration = HearthServerConfiguration.testing(in: directory)
        configuration.seedFile = seed.path

        let (first, one) = try await TestServer.start(configuration, in: directory)
        try await one.put("/seeded", "null")
        try await one.put("/kept", "1")
        await first.shutdown()

        let (second, two) = try await TestServer.start(configuration, in: directory)
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
        let configuration = HearthServerConfiguration.testing(in: directory)
        let rules = #"{"rules": {"a": {".indexOn": 5}}}"#
        try rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
        await #expect(throws: HearthServerError.self) {
            let (running, _) = try await TestServer.start(configuration, in: directory)
            await running.shutdown()
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
