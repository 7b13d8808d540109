import Foundation
import HearthTestSupport
import Testing

/// A full disk under a running server (the `full` fault of `DiskFault`): writes are refused with
/// a 503 that says so and are not stored, reads go on, and writes resume without a restart once
/// there is space again.
@Suite("Disk faults: a full disk")
struct DiskFullTests {
    @Test func writesAreRefusedWhileTheDiskIsFullAndResumeWhenSpaceIsBack() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let fault = try DiskFault(directory: data, scratch: directory.url)
        let server = try await fault.startServer(in: directory.url)
        #expect(try await server.request("PUT", "/before.json", body: #""kept""#, admin: true).status == 200)

        try fault.set(.full)
        let refused = try await server.request("PUT", "/during.json", body: "1", admin: true)
        FaultChecks.expectRefused(refused, status: 503, saying: "the disk is full")
        #expect(!refused.body.contains(data.path), "a client is not told the server's files: \(refused.body)")
        let update = try await server.request("PATCH", "/.json", body: #"{"a":1,"b":2}"#, admin: true)
        FaultChecks.expectRefused(update, status: 503, saying: "the disk is full")
        let realtime = try await FaultChecks.realtimePut(server, "/during-ws", "2")
        #expect(realtime.status == "failure")
        #expect(realtime.message?.contains("the disk is full") == true, "\(realtime.message ?? "")")
        // An account change is refused as Firebase Auth refuses one it could not store.
        let signUp = try await server.request(
            "POST",
            "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
            body: #"{"email":"ada@example.com","password":"secret1","returnSecureToken":true}"#,
            timeout: ProcessTestServer.passwordHashingTimeout
        )
        #expect(signUp.status == 500 && signUp.body.contains("INTERNAL_ERROR"), "\(signUp.status) \(signUp.body)")
        // Reads go on, and show nothing of the refused writes.
        #expect(try await server.request("GET", "/before.json", admin: true).body == #""kept""#)
        #expect(try await server.request("GET", "/during.json", admin: true).body == "null")
        #expect(server.child.isRunning)

        try fault.set(nil)
        try await FaultChecks.expectWritesResume(server, path: "/after.json", body: "3")
        #expect(try await server.request("GET", "/.json", admin: true).body == #"{"after":3,"before":"kept"}"#)
        _ = try await server.signUp("ada@example.com", password: "secret1")
        let stopped = try await server.terminate()
        #expect(stopped.status == 0)

        // Restarted on a healthy disk: exactly the acknowledged writes.
        let again = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        #expect(try await again.request("GET", "/.json", admin: true).body == #"{"after":3,"before":"kept"}"#)
        _ = try await again.terminate()
    }
}
