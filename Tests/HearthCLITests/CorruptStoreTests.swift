import Foundation
import HearthTestSupport
import Testing

/// Damaged LevelDB files (bit rot in the MANIFEST, the log, a table): the server either refuses
/// to start and names `hearth doctor`, or (damage LevelDB finds only when it reads the block)
/// starts, answers reads of the damaged part with an error that names `hearth doctor` instead of
/// wrong data, refuses every write, and never crashes.
@Suite("Disk faults: damaged store files")
struct CorruptStoreTests {
    @Test func aDamagedManifestStopsTheStartAndNamesTheDoctor() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        try await StoreDamage.storeItems(20, in: data, workingDirectory: directory.url)
        let damage = StoreDamage(dataDirectory: data)
        try damage.flipBytes(in: try damage.manifest(), count: 4)
        try await expectRefusedStart(data, in: directory)
    }

    @Test func aDamagedLogRecordStopsTheStartAndNamesTheDoctor() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        for index in 0..<20 {
            _ = try await server.request("PUT", "/log/i\(index).json", body: "\(index)", admin: true)
        }
        #expect(try await server.terminate().status == 0)
        let damage = StoreDamage(dataDirectory: data)
        let log = try #require(try damage.files(endingWith: ".log").first)
        try damage.flipBytes(in: log)
        try await expectRefusedStart(data, in: directory)
    }

    @Test func aDamagedTableBlockFailsItsReadsAndStopsWritesWithoutACrash() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        try await StoreDamage.storeItems(200, in: data, workingDirectory: directory.url)
        let damage = StoreDamage(dataDirectory: data)
        let table = try #require(try damage.files(endingWith: ".ldb").first, "no table file was written")
        try damage.flipBytes(in: table, at: StoreDamage.firstBlock)

        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let read = try await server.request("GET", "/items.json", admin: true)
        FaultChecks.expectRefused(read, status: 500, saying: "hearth doctor")
        let write = try await server.request("PUT", "/other.json", body: "1", admin: true)
        FaultChecks.expectRefused(write, status: 500, saying: "damaged")
        #expect(server.child.isRunning)
        #expect(try await server.request("GET", "/.well-known/hearth/health").status == 200)
        #expect(try await server.terminate().status == 0)
    }

    private func expectRefusedStart(_ data: URL, in directory: TemporaryDirectory) async throws {
        let port = try FreePort.find()
        let run = try await HearthProcess.run(
            ["serve", "--host", "127.0.0.1", "--port", "\(port)", "--data", data.path, "--admin-secret", "s"],
            directory: directory.url,
            timeout: .seconds(60)
        )
        #expect(run.status == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("damaged") && run.stderr.contains("hearth doctor"), "\(run.stderr)")
        #expect(!run.stderr.contains("Fatal error"), "\(run.stderr)")
    }
}
