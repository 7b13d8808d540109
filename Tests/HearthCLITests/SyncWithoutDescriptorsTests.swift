import Foundation
import HearthTestSupport
import Testing

/// A background sync that cannot open a log (the process out of file descriptors: the
/// `nofiles` fault of `DiskFault`) is not a disk fault: writes go on, and the sync is tried
/// again at the next tick until it reaches the disk (docs/disk-faults.md).
@Suite("Disk faults: out of file descriptors")
struct SyncWithoutDescriptorsTests {
    @Test func aSyncThatCannotOpenItsLogRefusesNoWriteAndIsTriedAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let fault = try DiskFault(directory: data, scratch: directory.url)
        let server = try await fault.startServer(in: directory.url)
        defer { try? fault.set(nil) }
        #expect(try await server.request("PUT", "/before.json", body: #""kept""#, admin: true).status == 200)
        // What the start and that write left unsynced is synced by now.
        try await Task.sleep(for: .milliseconds(500))

        try fault.set(.nofiles)
        #expect(try await server.request("PUT", "/unsynced.json", body: "1", admin: true).status == 200)
        // The background sync (within 100 ms) cannot open the log; a few more ticks fail too.
        try await eventually(timeout: .seconds(20), interval: .milliseconds(20)) { fault.refused }
        try await Task.sleep(for: .milliseconds(300))
        // Said once, with what to do.
        try await eventually(timeout: .seconds(5), interval: .milliseconds(20)) {
            server.child.stderr().contains("the background fsync failed")
        }
        let said = server.child.stderr()
        #expect(said.contains("out of file descriptors: raise its limit"), "\(said)")
        // Once for the database's store (`data/db`), not at every tick that failed.
        let warnings = said.split(separator: "\n").filter {
            $0.contains("the background fsync failed") && $0.contains("hearth.data=\(data.path)/db ")
        }
        #expect(warnings.count == 1, "\(said)")

        // No write since: only a sync tried again reaches the disk (and waits there).
        try fault.set(.stall)
        try await eventually(timeout: .seconds(20), interval: .milliseconds(20)) { fault.stalled }

        // Out of descriptors again: a sync fails after this write, and later writes still go on.
        try fault.set(.nofiles)
        try FileManager.default.removeItem(atPath: fault.control.path + ".refused")
        #expect(try await server.request("PUT", "/during.json", body: "2", admin: true).status == 200)
        try await eventually(timeout: .seconds(20), interval: .milliseconds(20)) { fault.refused }
        let later = try await server.request("PUT", "/later.json", body: "3", admin: true)
        #expect(later.status == 200, "\(later.body)")
        let realtime = try await FaultChecks.realtimePut(server, "/later-ws", "4")
        #expect(realtime.status == "ok", "\(realtime.message ?? "")")

        try fault.set(nil)
        try await eventually(timeout: .seconds(5), interval: .milliseconds(20)) {
            server.child.stderr().contains("the background fsync reaches the disk again")
        }
        try await FaultChecks.expectStoredAfterRestart(
            server,
            data: data,
            workingDirectory: directory.url,
            [("/before", #""kept""#), ("/unsynced", "1"), ("/during", "2"), ("/later", "3"), ("/later-ws", "4")]
        )
    }
}
