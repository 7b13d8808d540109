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
        try await StoreDamage.storeLogWrites(20, in: data, workingDirectory: directory.url)
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

    @Test func aTruncatedTableStopsTheStartAndTheDoctorRepairsWhatIsLeft() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        try await StoreDamage.storeItems(200, in: data, workingDirectory: directory.url)
        let damage = StoreDamage(dataDirectory: data)
        let table = try #require(try damage.files(endingWith: ".ldb").first, "no table file was written")
        try damage.truncate(table, to: try damage.size(of: table) / 2)
        try await expectRefusedStart(data, in: directory)

        // The whole table is unreadable (its index is at its end): repair drops it, and says so.
        let repair = try await HearthProcess.run(["doctor", "--data", data.path, "--repair"])
        #expect(repair.status == 0, "\(repair.stdout) \(repair.stderr)")
        #expect(repair.stdout.contains("DAMAGED") && repair.stdout.contains("Repaired."), "\(repair.stdout)")
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        #expect(try await server.request("GET", "/items.json", admin: true).status == 200)
        #expect(try await server.request("PUT", "/after.json", body: "1", admin: true).status == 200)
        #expect(try await server.terminate().status == 0)
    }

    /// LevelDB cannot tell a log cut at its end from a crash during a write: the store opens
    /// with every record before the cut. (With `--sync always` an acknowledged write was
    /// fsynced, so only a disk that loses synced data does this.)
    @Test func aLogCutAtItsEndOpensWithEveryRecordBeforeTheCut() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        try await StoreDamage.storeLogWrites(20, in: data, workingDirectory: directory.url)
        let damage = StoreDamage(dataDirectory: data)
        let log = try #require(try damage.files(endingWith: ".log").first)
        // Past the empty sync records a stop leaves, into the last writes.
        try damage.truncate(log, to: try damage.size(of: log) - 150)

        let again = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let stored = try await again.request("GET", "/log.json?shallow=true", admin: true)
        let keys = Set(((try JSONSerialization.jsonObject(with: Data(stored.body.utf8)) as? [String: Any]) ?? [:]).keys)
        // The first writes, up to the cut: a prefix of them, without the last.
        #expect(keys.count >= 10 && keys.count < 20, "\(stored.body)")
        #expect(keys == Set((0..<keys.count).map { "i\($0)" }), "\(stored.body)")
        #expect(try await again.terminate().status == 0)
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
