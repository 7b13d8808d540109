import Foundation
import HearthTestSupport
import Testing

/// fsync failing under a running server (the `fsync` fault of `DiskFault`): with `--sync
/// always` no write is acknowledged without its fsync; with the default periodic sync the
/// background fsync's failure makes later writes refused. Either way reads go on and writes
/// resume, without a restart, once fsync works again.
@Suite("Disk faults: fsync failing")
struct FsyncFailureTests {
    @Test func withSyncAlwaysAWriteWhoseFsyncFailedIsNotAcknowledged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let fault = try DiskFault(directory: data, scratch: directory.url)
        let server = try await fault.startServer(in: directory.url, arguments: ["--sync", "always"])
        #expect(try await server.request("PUT", "/before.json", body: #""kept""#, admin: true).status == 200)

        try fault.set(.fsync)
        let refused = try await server.request("PUT", "/during.json", body: "1", admin: true)
        FaultChecks.expectRefused(refused, status: 503, saying: "I/O error")
        // Later writes are refused too (LevelDB's log is in doubt), over either protocol.
        let realtime = try await FaultChecks.realtimePut(server, "/during-ws", "2")
        #expect(realtime.status == "failure")
        #expect(realtime.message?.contains("I/O error") == true, "\(realtime.message ?? "")")
        #expect(try await server.request("GET", "/before.json", admin: true).body == #""kept""#)

        try fault.set(nil)
        try await FaultChecks.expectWritesResume(server, path: "/after.json", body: "3")
        #expect(try await server.request("GET", "/after.json", admin: true).body == "3")
        #expect(try await server.terminate().status == 0)
    }

    @Test func withPeriodicSyncAFailedBackgroundFsyncStopsLaterWrites() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let fault = try DiskFault(directory: data, scratch: directory.url)
        let server = try await fault.startServer(in: directory.url)
        try fault.set(.fsync)
        // Acknowledged once in the OS (the periodic mode's promise); its fsync, within 100 ms,
        // fails, and from then on writes are refused. (Refused at once only if a write of the
        // server's start was still unsynced and its fsync failed first.)
        let first = try await server.request("PUT", "/first.json", body: "1", admin: true)
        #expect(first.status == 200 || first.status == 503, "\(first.body)")
        let firstStored = first.status == 200 ? "1" : "null"
        let refused = try await eventually(timeout: .seconds(20), interval: .milliseconds(50)) {
            try await server.request("PUT", "/later.json", body: "2", admin: true)
        } until: {
            $0.status != 200
        }
        FaultChecks.expectRefused(refused, status: 503, saying: "I/O error")
        let firstRead = try await server.request("GET", "/first.json", admin: true)
        #expect(
            firstRead.body == firstStored,
            "the first write answered \(first.status) \(first.body); read \(firstRead.status) \(firstRead.body)"
        )

        try fault.set(nil)
        try await FaultChecks.expectWritesResume(server, path: "/after.json", body: "3")
        #expect(try await server.terminate().status == 0)
        let again = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        // A refused first write is maybe stored once the store reopens: LevelDB may have taken it
        // into its log as the background fsync failed (docs/disk-faults.md). An acknowledged one
        // is stored.
        let firstAgain = try await again.request("GET", "/first.json", admin: true)
        let afterRestart = first.status == 200 ? ["1"] : ["null", "1"]
        #expect(afterRestart.contains(firstAgain.body), "after a restart: \(firstAgain.status) \(firstAgain.body)")
        #expect(try await again.request("GET", "/after.json", admin: true).body == "3")
        _ = try await again.terminate()
    }
}
