import Foundation
import HearthTestSupport
import Testing

/// A disk that stops answering fsync for a while (the `stall` fault of `DiskFault`): with the
/// default periodic sync, writes are acknowledged once in the OS, so they go on while the
/// background fsync waits; nothing a client sends waits for the disk.
@Suite("Disk faults: fsync stalled")
struct StalledDiskTests {
    @Test func withPeriodicSyncWritesGoOnWhileTheBackgroundFsyncWaits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let fault = try DiskFault(directory: data, scratch: directory.url)
        let server = try await fault.startServer(in: directory.url)
        defer { try? fault.set(nil) }
        #expect(try await server.request("PUT", "/before.json", body: #""kept""#, admin: true).status == 200)

        try fault.set(.stall)
        // An unsynced write: the background sync (within 100 ms) takes it to the disk, and waits.
        #expect(try await server.request("PUT", "/unsynced.json", body: "1", admin: true).status == 200)
        try await eventually(timeout: .seconds(20), interval: .milliseconds(20)) { fault.stalled }
        // LevelDB's writes queue behind a sync made through its own write path: these would wait
        // for the disk (and their event loop with them) until the stall ends.
        let during = try await server.request("PUT", "/during.json", body: "2", admin: true, timeout: .seconds(20))
        #expect(during.status == 200, "\(during.body)")
        let realtime = try await FaultChecks.realtimePut(server, "/during-ws", "3")
        #expect(realtime.status == "ok", "\(realtime.message ?? "")")
        #expect(try await server.request("GET", "/during.json", admin: true).body == "2")
        #expect(fault.stalled)

        try fault.set(nil)
        #expect(try await server.request("PUT", "/after.json", body: "4", admin: true).status == 200)
        try await FaultChecks.expectStoredAfterRestart(
            server,
            data: data,
            workingDirectory: directory.url,
            [("/before", #""kept""#), ("/unsynced", "1"), ("/during", "2"), ("/during-ws", "3"), ("/after", "4")]
        )
    }

    /// Storage's catalog is synced in the background too: a metadata change (no object bytes,
    /// nothing of the database) reaches the disk within the periodic interval, beside the
    /// request, which answers while that fsync waits.
    @Test func withPeriodicSyncStoragesCatalogIsSyncedInTheBackground() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let fault = try DiskFault(directory: data, scratch: directory.url)
        let server = try await fault.startServer(in: directory.url)
        defer { try? fault.set(nil) }
        #expect(try await server.upload("kept.txt", Array("kept".utf8)).status == 200)
        // The upload's own fsyncs, and the background syncs of what it and the start wrote.
        try await Task.sleep(for: .milliseconds(500))

        try fault.set(.stall)
        let patch = try await server.storage(
            "PATCH",
            "/v0/b/\(ProcessTestServer.bucket)/o/kept.txt",
            headers: [("Content-Type", "application/json")],
            body: Array(#"{"contentType":"text/html"}"#.utf8)
        )
        #expect(patch.status == 200, "\(patch.body)")
        // Only a background sync of the catalog's log syncs anything now.
        try await eventually(timeout: .seconds(20), interval: .milliseconds(20)) { fault.stalled }

        try fault.set(nil)
        #expect(try await server.terminate().status == 0)
        let again = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let metadata = try await again.storage("GET", "/v0/b/\(ProcessTestServer.bucket)/o/kept.txt")
        #expect(metadata.body.contains("text/html"), "\(metadata.body)")
        _ = try await again.terminate()
    }
}
