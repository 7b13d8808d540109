import Foundation
import HearthTestSupport
import Testing

/// A read-only data directory (the `readonly` fault of `DiskFault`, EROFS as after a remount
/// read-only; the tests run as root, which permission bits do not stop): at start the server
/// refuses with a message that says so; while it runs, writes are refused, reads go on, and
/// writes resume once it is writable again.
@Suite("Disk faults: a read-only data directory")
struct ReadOnlyDataTests {
    @Test func aServerDoesNotStartOnAReadOnlyDataDirectoryAndSaysWhy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let fault = try DiskFault(directory: data, scratch: directory.url)
        let first = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        #expect(try await first.request("PUT", "/a.json", body: "1", admin: true).status == 200)
        #expect(try await first.terminate().status == 0)

        try fault.set(.readonly)
        let port = try FreePort.find()
        let refused = try await HearthProcess.run(
            ["serve", "--host", "127.0.0.1", "--port", "\(port)", "--data", data.path, "--admin-secret", "s"],
            environment: fault.environment,
            directory: directory.url,
            timeout: .seconds(60)
        )
        #expect(refused.status == 1, "stderr: \(refused.stderr)")
        #expect(refused.stderr.lowercased().contains("read-only"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("Fatal error"), "\(refused.stderr)")

        // The doctor tells a read-only directory from a damaged one.
        let doctor = try await HearthProcess.run(
            ["doctor", "--data", data.path, "--repair"],
            environment: fault.environment,
            directory: directory.url
        )
        #expect(doctor.status == 1)
        #expect(doctor.stderr.contains("read-only") && doctor.stderr.contains("not damage"), "\(doctor.stderr)")

        // Nothing was changed: on a writable directory it starts with the data.
        try fault.set(nil)
        let again = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        #expect(try await again.request("GET", "/a.json", admin: true).body == "1")
        _ = try await again.terminate()
    }

    @Test func writesAreRefusedWhileTheDirectoryIsReadOnlyAndResumeAfter() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let fault = try DiskFault(directory: data, scratch: directory.url)
        let server = try await fault.startServer(in: directory.url)
        #expect(try await server.request("PUT", "/before.json", body: "1", admin: true).status == 200)

        try fault.set(.readonly)
        let refused = try await server.request("PUT", "/during.json", body: "2", admin: true)
        FaultChecks.expectRefused(refused, status: 503, saying: "read-only")
        let read = try await server.request("GET", "/before.json", admin: true)
        #expect(read.body == "1", "\(read.status) \(read.body)")

        try fault.set(nil)
        try await FaultChecks.expectWritesResume(server, path: "/after.json", body: "3")
        let all = try await server.request("GET", "/.json", admin: true)
        #expect(all.body == #"{"after":3,"before":1}"#, "\(all.status) \(all.body)")
        #expect(try await server.terminate().status == 0)
    }
}
