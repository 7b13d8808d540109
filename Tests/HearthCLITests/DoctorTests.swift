import Foundation
import HearthTestSupport
import Testing

/// `hearth doctor [--repair]` on stopped data directories: healthy, in use, damaged, repaired.
@Suite("hearth doctor")
struct DoctorTests {
    @Test func aHealthyStoreIsReportedHealthy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        try await StoreDamage.storeItems(10, in: data, workingDirectory: directory.url)
        let run = try await HearthProcess.run(["doctor", "--data", data.path])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("healthy") && run.stdout.contains("databases: default"), "\(run.stdout)")
        #expect(run.stdout.contains("Healthy: nothing to repair."), "\(run.stdout)")
    }

    @Test func itRefusesADataDirectoryAServerRunsOnOrThatIsMissing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let running = try await HearthProcess.run(["doctor", "--data", data.path, "--repair"])
        #expect(running.status == 1)
        #expect(running.stderr.contains("server is running") && running.stderr.contains("stop it"), "\(running.stderr)")
        #expect(try await server.terminate().status == 0)
        let missing = try await HearthProcess.run(["doctor", "--data", directory.appending("nothing").path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no Hearth data directory"), "\(missing.stderr)")
    }

    @Test func aDamagedManifestIsReportedThenRepairedWithEveryRecordKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        try await StoreDamage.storeItems(30, in: data, workingDirectory: directory.url)
        let damage = StoreDamage(dataDirectory: data)
        try damage.flipBytes(in: try damage.manifest(), count: 4)

        let report = try await HearthProcess.run(["doctor", "--data", data.path])
        #expect(report.status == 1)
        #expect(report.stdout.contains("DAMAGED"), "\(report.stdout)")
        #expect(report.stderr.contains("--repair"), "\(report.stderr)")

        let repair = try await HearthProcess.run(["doctor", "--data", data.path, "--repair"])
        #expect(repair.status == 0, "\(repair.stdout) \(repair.stderr)")
        let aside = try #require(
            repair.stdout.firstMatch(of: /Copied the damaged stores to '([^']+)'/).map { String($0.1) }
        )
        #expect(FileManager.default.fileExists(atPath: aside + "/db/CURRENT"), "\(aside)")
        #expect(repair.stdout.contains("Repaired."), "\(repair.stdout)")

        // The MANIFEST is rebuilt from the tables: every record is back.
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let items = try await server.request("GET", "/items.json?shallow=true", admin: true)
        let keys = try JSONSerialization.jsonObject(with: Data(items.body.utf8)) as? [String: Any]
        #expect(keys?.count == 30, "\(items.body)")
        #expect(try await server.request("PUT", "/after.json", body: "1", admin: true).status == 200)
        #expect(try await server.terminate().status == 0)
        try? FileManager.default.removeItem(atPath: aside)
    }

    @Test func aDamagedTableIsRepairedAndTheStoreServesAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        try await StoreDamage.storeItems(200, in: data, workingDirectory: directory.url)
        let damage = StoreDamage(dataDirectory: data)
        try damage.flipBytes(in: try #require(try damage.files(endingWith: ".ldb").first), at: StoreDamage.firstBlock)

        let report = try await HearthProcess.run(["doctor", "--data", data.path])
        #expect(report.status == 1)
        #expect(report.stdout.contains("DAMAGED") && report.stdout.contains("checksum"), "\(report.stdout)")

        let repair = try await HearthProcess.run(["doctor", "--data", data.path, "--repair"])
        #expect(repair.status == 0, "\(repair.stdout) \(repair.stderr)")
        #expect(repair.stdout.contains("After repair") && repair.stdout.contains("healthy"), "\(repair.stdout)")
        if let aside = repair.stdout.firstMatch(of: /Copied the damaged stores to '([^']+)'/).map({ String($0.1) }) {
            try? FileManager.default.removeItem(atPath: aside)
        }
        // What survived reads back without an error, and writes are accepted again.
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        #expect(try await server.request("GET", "/items.json", admin: true).status == 200)
        #expect(try await server.request("PUT", "/after.json", body: "1", admin: true).status == 200)
        #expect(try await server.terminate().status == 0)
    }
}
