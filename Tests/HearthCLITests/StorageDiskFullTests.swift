import Foundation
import HearthTestSupport
import Testing

/// Storage on a full disk, with the database's disk-fault behaviour (docs/disk-faults.md): an
/// upload, a resumable start or chunk, a metadata change or a delete is answered 503 with
/// `Retry-After` and a message saying the disk is full (not the server's files); nothing is
/// stored and no part file stays; reads go on; uploads resume without a restart once there is
/// room, and a resumable upload goes on from the bytes it had.
@Suite("Disk faults: storage on a full disk")
struct StorageDiskFullTests {
    static let bucket = ProcessTestServer.bucket

    static func expectDiskFull(
        _ reply: ProcessTestServer.StorageReply,
        data: URL,
        _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reply.status == 503, "\(what): \(reply.status) \(reply.body)", sourceLocation: sourceLocation)
        #expect(reply.retryAfter == "1", "\(what)", sourceLocation: sourceLocation)
        let json = try? JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        let error = json?["error"] as? [String: Any]
        #expect(error?["code"] as? Int == 503, "\(what): \(reply.body)", sourceLocation: sourceLocation)
        #expect(
            (error?["message"] as? String)?.contains("the disk is full") == true,
            "\(what): \(reply.body)",
            sourceLocation: sourceLocation
        )
        #expect(
            !reply.body.contains(data.path),
            "\(what): a client is not told the server's files",
            sourceLocation: sourceLocation
        )
    }

    static func resumable(
        _ server: ProcessTestServer,
        _ session: String,
        _ command: String,
        offset: Int? = nil,
        _ text: String = ""
    )
        async throws -> ProcessTestServer.StorageReply
    {
        var headers = [("X-Goog-Upload-Command", command)]
        if let offset { headers.append(("X-Goog-Upload-Offset", "\(offset)")) }
        return try await server.storage("POST", session, headers: headers, body: Array(text.utf8))
    }

    @Test func uploadsAreRefused503WhileTheDiskIsFullAndResumeWhenSpaceIsBack() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let fault = try DiskFault(directory: data, scratch: directory.url)
        let server = try await fault.startServer(in: directory.url)
        #expect(try await server.upload("kept.txt", Array("kept".utf8)).status == 200)
        let start = try await server.storage(
            "POST",
            "/v0/b/\(Self.bucket)/o?name=resumed.txt",
            headers: [
                ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
                ("X-Goog-Upload-Header-Content-Length", "8"),
            ]
        )
        let url = try #require(start.headers["x-goog-upload-url"])
        let session = String(url.dropFirst(server.baseURL.count))
        #expect(try await Self.resumable(server, session, "upload", offset: 0, "abcd").status == 200)
        let objects = server.storageFiles("objects")

        try fault.set(.full)
        Self.expectDiskFull(try await server.upload("during.txt", Array("lost".utf8)), data: data, "media upload")
        let multipart =
            Array("--b\r\nContent-Type: application/json\r\n\r\n{\"name\":\"m.txt\"}\r\n--b\r\n".utf8)
            + Array("Content-Type: text/plain\r\n\r\nlost\r\n--b--".utf8)
        let refusedMultipart = try await server.storage(
            "POST",
            "/v0/b/\(Self.bucket)/o",
            headers: [("X-Goog-Upload-Protocol", "multipart"), ("Content-Type", "multipart/related; boundary=b")],
            body: multipart
        )
        Self.expectDiskFull(refusedMultipart, data: data, "multipart upload")
        let refusedStart = try await server.storage(
            "POST",
            "/v0/b/\(Self.bucket)/o?name=new.txt",
            headers: [("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start")]
        )
        Self.expectDiskFull(refusedStart, data: data, "resumable start")
        let refusedChunk = try await Self.resumable(server, session, "upload", offset: 4, "efgh")
        Self.expectDiskFull(refusedChunk, data: data, "resumable chunk")
        #expect(refusedChunk.headers["x-goog-upload-status"] == "active")
        let patch = try await server.storage(
            "PATCH",
            "/v0/b/\(Self.bucket)/o/kept.txt",
            headers: [("Content-Type", "application/json")],
            body: Array(#"{"contentType":"text/html"}"#.utf8)
        )
        Self.expectDiskFull(patch, data: data, "metadata update")
        Self.expectDiskFull(try await server.storage("DELETE", "/v0/b/\(Self.bucket)/o/kept.txt"), data: data, "delete")
        // Reads go on and show nothing of the refused changes.
        let kept = try await server.storage("GET", "/v0/b/\(Self.bucket)/o/kept.txt?alt=media")
        #expect(kept.status == 200 && kept.body == "kept", "\(kept.status) \(kept.body)")
        #expect(try await server.objectNames() == ["kept.txt"])
        let query = try await Self.resumable(server, session, "query")
        #expect(query.headers["x-goog-upload-size-received"] == "4")
        #expect(server.storageFiles("tmp").isEmpty && server.storageFiles("objects") == objects)
        #expect(server.child.isRunning)

        try fault.set(nil)
        try await eventually(timeout: .seconds(30), interval: .milliseconds(200)) {
            try await server.upload("after.txt", Array("after".utf8)).status == 200
        }
        let rest = try await Self.resumable(server, session, "upload, finalize", offset: 4, "efgh")
        #expect(rest.status == 200 && rest.body.contains(#""size":"8""#), "\(rest.body)")
        let metadata = try await server.storage("GET", "/v0/b/\(Self.bucket)/o/kept.txt")
        #expect(metadata.body.contains(#""contentType":"application/octet-stream""#), "\(metadata.body)")
        #expect(try await server.terminate().status == 0)

        // Restarted on a healthy disk: exactly the acknowledged uploads, no part file.
        let again = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        #expect(try await again.objectNames() == ["after.txt", "kept.txt", "resumed.txt"])
        let resumed = try await again.storage("GET", "/v0/b/\(Self.bucket)/o/resumed.txt?alt=media")
        #expect(resumed.body == "abcdefgh")
        #expect(again.storageFiles("tmp").isEmpty && again.storageFiles("uploads").isEmpty)
        #expect(again.storageFiles("objects").count == 3)
        _ = try await again.terminate()
    }

    /// The same when the file system turns read-only under the server, and an fsync that fails:
    /// 503 naming the cause, nothing stored, uploads resume.
    @Test func uploadsAreRefused503OnAReadOnlyOrFailingDisk() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let fault = try DiskFault(directory: data, scratch: directory.url)
        let server = try await fault.startServer(in: directory.url)
        for (kind, words) in [(DiskFault.Kind.readonly, "read-only"), (.fsync, "I/O error")] {
            try fault.set(kind)
            let refused = try await server.upload("\(kind).txt", Array("lost".utf8))
            #expect(refused.status == 503 && refused.retryAfter == "1", "\(kind): \(refused.status) \(refused.body)")
            #expect(refused.body.contains(words) && !refused.body.contains(data.path), "\(kind): \(refused.body)")
            #expect(server.storageFiles("tmp").isEmpty && server.storageFiles("objects").isEmpty, "\(kind)")
            try fault.set(nil)
        }
        try await eventually(timeout: .seconds(30), interval: .milliseconds(200)) {
            try await server.upload("after.txt", Array("after".utf8)).status == 200
        }
        #expect(try await server.objectNames() == ["after.txt"])
        _ = try await server.terminate()
    }

    /// A real full disk (a 16 MiB tmpfs filled by a ballast file, as `RealFullDiskTests`): an
    /// upload larger than the room left is refused while it streams, its part file is removed,
    /// the server keeps serving, and uploads resume once the ballast goes.
    @Test(
        .enabled(if: RealFullDiskTests.canMount, "mounting a tmpfs is not allowed here (needs root with CAP_SYS_ADMIN)")
    )
    func anUploadIntoARealFullDiskIsRefusedWhileItStreams() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = try TmpfsMount(at: directory.appending("disk"), megabytes: 16)
        defer { disk.unmount() }
        let data = disk.url.appendingPathComponent("data")
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        #expect(try await server.upload("before.bin", [UInt8](repeating: 1, count: 10_000)).status == 200)

        let ballast = disk.url.appendingPathComponent("ballast")
        try disk.fill(ballast, leaving: 256 << 10)
        let big = [UInt8](repeating: 2, count: 4 << 20)
        Self.expectDiskFull(try await server.upload("big.bin", big), data: data, "4 MiB into 256 KiB")
        #expect(server.storageFiles("tmp").isEmpty, "the part file is removed")
        #expect(server.storageFiles("objects").count == 1)
        let before = try await server.storage("GET", "/v0/b/\(Self.bucket)/o/before.bin?alt=media")
        #expect(before.status == 200 && before.body.utf8.count == 10_000)
        #expect(try await server.request("GET", "/.well-known/hearth/health").status == 200)

        try FileManager.default.removeItem(at: ballast)
        try await eventually(timeout: .seconds(30), interval: .milliseconds(200)) {
            try await server.upload("big.bin", big).status == 200
        }
        #expect(try await server.terminate().status == 0)
        let again = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        #expect(try await again.objectNames() == ["before.bin", "big.bin"])
        #expect(again.storageFiles("tmp").isEmpty && again.storageFiles("objects").count == 2)
        _ = try await again.terminate()
    }
}
