import Foundation
import HearthTestSupport
import Testing

/// Backups carry Firebase Storage's objects: uploaded over HTTP (media, multipart, resumable),
/// backed up with `hearth backup`, restored with `hearth restore` into a fresh directory, and
/// served there with the same bytes and metadata (generation, download tokens, MD5).
@Suite("Backup and restore of storage objects")
struct StorageBackupProcessTests {
    static let bucket = "hearth.appspot.com"

    static func objectPath(_ name: String, query: String? = nil) -> String {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return "/v0/b/\(bucket)/o/\(encoded)" + (query.map { "?" + $0 } ?? "")
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// A media upload of `bytes` as `name`; its metadata JSON.
    static func uploadMedia(_ server: ProcessTestServer, _ name: String, _ bytes: [UInt8]) async throws {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let answer = try await server.requestBytes(
            "POST",
            "/v0/b/\(bucket)/o?name=\(encoded)",
            body: bytes,
            headers: [("Content-Type", "application/octet-stream")],
            admin: true
        )
        #expect(answer.status == 200, "\(answer.text)")
    }

    static func uploadMultipart(_ server: ProcessTestServer, _ name: String, _ bytes: [UInt8]) async throws {
        let metadata =
            #"{"name":"\#(name)","contentType":"image/png","metadata":{"chatId":"c1"},"cacheControl":"no-cache"}"#
        let body =
            Array("--b0undary\r\nContent-Type: application/json; charset=utf-8\r\n\r\n\(metadata)\r\n".utf8)
            + Array("--b0undary\r\nContent-Type: application/octet-stream\r\n\r\n".utf8) + bytes
            + Array("\r\n--b0undary--".utf8)
        let answer = try await server.requestBytes(
            "POST",
            "/v0/b/\(bucket)/o?name=\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
            body: body,
            headers: [
                ("X-Goog-Upload-Protocol", "multipart"), ("Content-Type", "multipart/related; boundary=b0undary"),
            ],
            admin: true
        )
        #expect(answer.status == 200, "\(answer.text)")
    }

    /// A resumable upload in two chunks; with `finalize: false` the session stays open.
    static func uploadResumable(
        _ server: ProcessTestServer,
        _ name: String,
        _ bytes: [UInt8],
        finalize: Bool = true
    ) async throws {
        let start = try await server.requestBytes(
            "POST",
            "/v0/b/\(bucket)/o?name=\(name)",
            body: Array(#"{"metadata":{"kind":"resumable"}}"#.utf8),
            headers: [
                ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
                ("X-Goog-Upload-Header-Content-Length", "\(bytes.count)"),
                ("X-Goog-Upload-Header-Content-Type", "video/mp4"), ("Content-Type", "application/json"),
            ],
            admin: true
        )
        let url = try #require(start.header("X-Goog-Upload-URL"), "\(start.status) \(start.text)")
        let session = String(url.dropFirst(server.baseURL.count))
        let half = bytes.count / 2
        let first = try await server.requestBytes(
            "POST",
            session,
            body: Array(bytes[..<half]),
            headers: [("X-Goog-Upload-Command", "upload"), ("X-Goog-Upload-Offset", "0")]
        )
        #expect(first.status == 200, "\(first.text)")
        guard finalize else { return }
        let last = try await server.requestBytes(
            "POST",
            session,
            body: Array(bytes[half...]),
            headers: [("X-Goog-Upload-Command", "upload, finalize"), ("X-Goog-Upload-Offset", "\(half)")]
        )
        #expect(last.status == 200 && last.header("X-Goog-Upload-Status") == "final", "\(last.text)")
    }

    @Test func aRestoredServerServesEveryObjectWithItsBytesAndMetadata() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        #expect(try await server.request("PUT", "/notes/ada.json", body: #"{"born":1815}"#, admin: true).status == 200)

        // Bigger than a backup record (1 MiB), so its bytes span several; and the other kinds.
        var objects: [String: [UInt8]] = [
            "videos/big.bin": Self.randomBytes(3 << 20 + 12345),
            "chats/c1/p.png": Self.randomBytes(1000),
            "users/u1/clip.mp4": Self.randomBytes(300_000),
            "empty.txt": [],
        ]
        try await Self.uploadMedia(server, "videos/big.bin", objects["videos/big.bin"]!)
        try await Self.uploadMultipart(server, "chats/c1/p.png", objects["chats/c1/p.png"]!)
        try await Self.uploadResumable(server, "users%2Fu1%2Fclip.mp4", objects["users/u1/clip.mp4"]!)
        try await Self.uploadMedia(server, "empty.txt", [])
        // A replaced object is backed up at its new version, a deleted one not at all, a
        // metadata update with its new metageneration; an open session is left out.
        try await Self.uploadMedia(server, "gone.txt", Array("bye".utf8))
        #expect(try await server.requestBytes("DELETE", Self.objectPath("gone.txt"), admin: true).status == 204)
        objects["chats/c1/p.png"] = Self.randomBytes(2000)
        try await Self.uploadMultipart(server, "chats/c1/p.png", objects["chats/c1/p.png"]!)
        let patched = try await server.requestBytes(
            "PATCH",
            Self.objectPath("empty.txt"),
            body: Array(#"{"customMetadata":{"note":"patched"}}"#.utf8),
            headers: [("Content-Type", "application/json")],
            admin: true
        )
        #expect(patched.status == 200, "\(patched.text)")
        try await Self.uploadResumable(server, "open.bin", Self.randomBytes(1000), finalize: false)

        var before: [String: [String: Any]] = [:]
        for name in objects.keys {
            before[name] = try await server.requestBytes("GET", Self.objectPath(name), admin: true).object()
        }
        let listing = try await server.requestBytes("GET", "/v0/b/\(Self.bucket)/o", admin: true).text

        let backup = try await HearthProcess.run(
            ["backup", "--data", data.path, "--output", "objects.backup"],
            directory: directory.url
        )
        #expect(backup.status == 0, "\(backup.stderr)")
        _ = try await server.terminate()

        let restored = directory.appending("restored")
        let restore = try await HearthProcess.run(
            ["restore", "objects.backup", "--data", restored.path],
            directory: directory.url
        )
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stderr.contains("; 4 storage objects (3.5 MB)"), "\(restore.stderr)")
        // Every file is in place under its generation; no part file, no session stays.
        let files = try FileManager.default.contentsOfDirectory(atPath: restored.path + "/storage/objects")
        #expect(Set(files) == Set(before.values.map { $0["generation"] as! String }))
        #expect(try FileManager.default.contentsOfDirectory(atPath: restored.path + "/storage/tmp").isEmpty)

        let doctor = try await HearthProcess.run(["doctor", "--data", restored.path])
        #expect(doctor.status == 0, "\(doctor.stdout) \(doctor.stderr)")
        #expect(doctor.stdout.contains("4 objects, 3.5 MB, every file matches its size and MD5"), "\(doctor.stdout)")

        let again = try await ProcessTestServer.start(dataDirectory: restored, workingDirectory: directory.url)
        #expect(try await again.request("GET", "/notes/ada/born.json", admin: true).body == "1815")
        for (name, bytes) in objects {
            let metadata = try await again.requestBytes("GET", Self.objectPath(name), admin: true).object()
            #expect(NSDictionary(dictionary: metadata) == NSDictionary(dictionary: before[name]!), "\(name)")
            // A download token of before reads the bytes without a credential.
            let token = try #require((metadata["downloadTokens"] as? String)?.split(separator: ",").first)
            let media = try await again.requestBytes("GET", Self.objectPath(name, query: "alt=media&token=\(token)"))
            #expect(media.status == 200 && media.body == bytes, "\(name): \(media.status), \(media.body.count) bytes")
        }
        #expect(try await again.requestBytes("GET", "/v0/b/\(Self.bucket)/o", admin: true).text == listing)
        #expect(try await again.requestBytes("GET", Self.objectPath("gone.txt"), admin: true).status == 404)
        #expect(try await again.requestBytes("GET", Self.objectPath("open.bin"), admin: true).status == 404)
        // The restored store takes new uploads beside the old ones.
        try await Self.uploadMedia(again, "after.txt", Array("new".utf8))
        #expect(
            try await again.requestBytes("GET", Self.objectPath("after.txt", query: "alt=media"), admin: true).text
                == "new"
        )
        #expect(try await again.terminate().status == 0)
    }

    @Test func aBackupOfFormatVersion1WithoutObjectsStillRestores() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try BackupVersion1Fixture.bytes.write(to: directory.appending("v1.backup"))
        let restored = directory.appending("restored")
        let restore = try await HearthProcess.run(
            ["restore", "v1.backup", "--data", restored.path],
            directory: directory.url
        )
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stderr.contains("default at sequence 3; 0 storage objects"), "\(restore.stderr)")
        let server = try await ProcessTestServer.start(dataDirectory: restored, workingDirectory: directory.url)
        #expect(try await server.request("GET", "/notes.json", admin: true).body == BackupVersion1Fixture.notes)
        try await Self.uploadMedia(server, "first.txt", Array("one".utf8))
        #expect(try await server.terminate().status == 0)
    }
}
