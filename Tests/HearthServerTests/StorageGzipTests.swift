import AsyncHTTPClient
import Foundation
import HearthTestSupport
import NIOCore
import Testing

/// Cloud Storage's decompressive transcoding over both APIs: an object stored with
/// `contentEncoding: gzip` goes out decompressed (no `Content-Encoding`, chunked, `Range`
/// ignored) to a client that does not accept gzip, and as stored (`Content-Encoding: gzip`,
/// ranges honoured) to one that does; `Cache-Control: no-transform` keeps it as stored; bytes
/// that are not gzip are refused before the answer starts, and a corruption further on cuts the
/// body short, is logged, and leaves the server serving.
@Suite struct StorageGzipTests {
    static let bucket = TestServer.bucket
    static let admin = TestServer.adminBearer

    /// An answer with its body as bytes (a gzip body is no text).
    struct Bytes: CustomStringConvertible {
        var status: Int
        /// Each header's values, by lowercased name.
        var fields: [String: [String]]
        var body: [UInt8]

        func header(_ name: String) -> String? { fields[name.lowercased()]?.first }
        func has(_ name: String) -> Bool { fields[name.lowercased()] != nil }
        var description: String { "\(status), \(body.count) bytes, \(fields)" }
    }

    /// A client that neither asks for gzip nor decompresses (the shared one does both).
    static let client = HTTPClient()

    /// `GET` (or `method`) of `path` with `headers`, the body collected as bytes; throws when
    /// the body ends early (the connection closed before its end).
    static func fetch(
        _ server: TestServer,
        _ path: String,
        method: String = "GET",
        headers: [(String, String)] = []
    ) async throws -> Bytes {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)\(path)")
        request.method = .init(rawValue: method)
        for (name, value) in Self.admin + headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 256 << 20)
        let fields = Dictionary(grouping: response.headers, by: { $0.name.lowercased() }).mapValues { $0.map(\.value) }
        return Bytes(status: Int(response.status.code), fields: fields, body: Array(buffer: body))
    }

    /// Uploads `bytes` as `name` through the GCS API's multipart upload with `fields` (JSON
    /// members) in its metadata part.
    static func upload(_ server: TestServer, _ name: String, _ bytes: [UInt8], fields: String) async throws {
        let metadata = #"{"name":"\#(name)","contentType":"text/plain",\#(fields)}"#
        let body =
            Array("--b\r\nContent-Type: application/json\r\n\r\n\(metadata)\r\n".utf8)
            + Array("--b\r\nContent-Type: text/plain\r\n\r\n".utf8) + bytes + Array("\r\n--b--".utf8)
        let reply = try await server.send(
            "POST",
            "/upload/storage/v1/b/\(bucket)/o?uploadType=multipart",
            headers: admin + [("Content-Type", "multipart/related; boundary=b")],
            body: body
        )
        #expect(reply.status == 200, "\(reply.body)")
    }

    static func v0(_ name: String) -> String {
        "/v0/b/\(bucket)/o/\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)?alt=media"
    }

    static func gcsPaths(_ name: String) -> [String] {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return [
            "/download/storage/v1/b/\(bucket)/o/\(encoded)?alt=media",
            "/storage/v1/b/\(bucket)/o/\(encoded)?alt=media",
        ]
    }

    @Test func servedDecompressedUnlessTheClientAcceptsGzip() async throws {
        try await TestServer.with { server in
            // 700 KB of text: several 256 KiB pieces decompressed.
            let original = GzipInflaterTestText.make(700_000)
            let compressed = try TestCommand.gzip(original)
            try await Self.upload(server, "logs/app.log", compressed, fields: #""contentEncoding":"gzip""#)

            for path in [Self.v0("logs/app.log")] + Self.gcsPaths("logs/app.log") {
                let plain = try await Self.fetch(server, path)
                #expect(plain.status == 200, "\(path)")
                #expect(plain.body == original, "\(path): \(plain.body.count) bytes")
                #expect(!plain.has("Content-Encoding"))
                #expect(!plain.has("Content-Length"))
                #expect(plain.header("Transfer-Encoding") == "chunked")
                #expect(plain.header("Content-Type") == "text/plain")
                #expect(plain.header("x-goog-stored-content-encoding") == "gzip")
                #expect(plain.header("x-goog-stored-content-length") == String(compressed.count))
                #expect(plain.header("Warning") == "214 UploadServer gunzipped")

                // A client that accepts gzip gets the bytes as stored, and may ask for ranges of them.
                let gzip = try await Self.fetch(server, path, headers: [("Accept-Encoding", "gzip, deflate")])
                #expect(gzip.status == 200 && gzip.body == compressed)
                #expect(gzip.header("Content-Encoding") == "gzip")
                #expect(gzip.header("Content-Length") == String(compressed.count))
                let gzipRange = try await Self.fetch(
                    server,
                    path,
                    headers: [("Accept-Encoding", "gzip"), ("Range", "bytes=0-9")]
                )
                #expect(gzipRange.status == 206 && gzipRange.body == Array(compressed[0..<10]))

                // Decompressed, a range is ignored: the whole object, 200.
                let ranged = try await Self.fetch(server, path, headers: [("Range", "bytes=0-9")])
                #expect(ranged.status == 200 && ranged.body == original)
                #expect(!ranged.has("Content-Range"))

                // gzip refused by weight, or only other codings: decompressed.
                for refusing in ["gzip;q=0, identity", "br, deflate", "identity", "*;q=0"] {
                    let other = try await Self.fetch(server, path, headers: [("Accept-Encoding", refusing)])
                    #expect(other.body == original && !other.has("Content-Encoding"), "\(refusing)")
                }
                let anything = try await Self.fetch(server, path, headers: [("Accept-Encoding", "*")])
                #expect(anything.body == compressed && anything.header("Content-Encoding") == "gzip")

                let head = try await Self.fetch(server, path, method: "HEAD")
                #expect(head.status == 200 && head.body.isEmpty && !head.has("Content-Encoding"))
            }

            // The connection still serves after the chunked answers (keep-alive intact).
            let after = try await Self.fetch(server, Self.v0("logs/app.log"), headers: [("Accept-Encoding", "gzip")])
            #expect(after.body == compressed)
        }
    }

    @Test func noTransformAndOtherEncodingsGoAsStored() async throws {
        try await TestServer.with { server in
            let compressed = try TestCommand.gzip(GzipInflaterTestText.make(5_000))
            try await Self.upload(
                server,
                "kept.gz",
                compressed,
                fields: #""contentEncoding":"gzip","cacheControl":"public, no-transform""#
            )
            let kept = try await Self.fetch(server, Self.v0("kept.gz"))
            #expect(kept.body == compressed && kept.header("Content-Encoding") == "gzip")

            try await Self.upload(server, "other.br", [1, 2, 3], fields: #""contentEncoding":"br""#)
            let other = try await Self.fetch(server, Self.gcsPaths("other.br")[0])
            #expect(other.body == [1, 2, 3] && other.header("Content-Encoding") == "br")

            // An empty gzip object: nothing to decompress.
            try await Self.upload(server, "empty.gz", [], fields: #""contentEncoding":"gzip""#)
            let empty = try await Self.fetch(server, Self.v0("empty.gz"))
            #expect(empty.status == 200 && empty.body.isEmpty)

            // The encoding set afterwards by a metadata update counts as well.
            let patched = try await server.send(
                "PATCH",
                "/storage/v1/b/\(Self.bucket)/o/other.br",
                headers: Self.admin + [("Content-Type", "application/json")],
                text: #"{"contentEncoding":"gzip"}"#
            )
            #expect(patched.status == 200)
            try await Self.upload(server, "later.txt.gz", compressed, fields: #""cacheControl":"private""#)
            let before = try await Self.fetch(server, Self.v0("later.txt.gz"))
            #expect(before.body == compressed && !before.has("Content-Encoding"))
            _ = try await server.send(
                "PATCH",
                "/storage/v1/b/\(Self.bucket)/o/later.txt.gz",
                headers: Self.admin + [("Content-Type", "application/json")],
                text: #"{"contentEncoding":"gzip"}"#
            )
            let transcoded = try await Self.fetch(server, Self.v0("later.txt.gz"))
            #expect(transcoded.body == GzipInflaterTestText.make(5_000))
        }
    }

    @Test func corruptBytesAreRefusedOrCutShortAndLogged() async throws {
        let logs = LogCapture()
        try await LoggedServer.with(logs: logs, rules: #"{"rules": {}}"#) { logged in
            let server = logged.server
            // Not gzip at all: refused before the answer starts; as stored for a gzip client.
            let plain = Array("plain text labelled gzip".utf8)
            try await Self.upload(server, "fake.gz", plain, fields: #""contentEncoding":"gzip""#)
            let refused = try await Self.fetch(server, Self.v0("fake.gz"))
            #expect(refused.status == 500)
            #expect(String(decoding: refused.body, as: UTF8.self).contains("not gzip"))
            let stored = try await Self.fetch(server, Self.v0("fake.gz"), headers: [("Accept-Encoding", "gzip")])
            #expect(stored.status == 200 && stored.body == plain)

            // Corrupt past the first piece: the answer has started (200), its body ends early.
            var compressed = try TestCommand.gzip(GzipInflaterTestText.noise(1_200_000), level: 1)
            #expect(compressed.count > 1_000_000)
            compressed[compressed.count - 100_000] ^= 0xFF
            try await Self.upload(server, "broken.gz", compressed, fields: #""contentEncoding":"gzip""#)
            for path in [Self.v0("broken.gz"), Self.gcsPaths("broken.gz")[0]] {
                await #expect(throws: (any Error).self) { try await Self.fetch(server, path) }
            }
            let cut = logs.records().filter { $0.message.contains("cut short") }
            #expect(cut.count == 2 && cut.allSatisfy { $0.level == .error })
            #expect(cut.first?.metadata["hearth.object"] == "\(Self.bucket)/broken.gz")
            #expect(logs.records().contains { $0.message.contains("not gzip") })

            // Cut short (a truncated upload), and the server still serves afterwards.
            let whole = try TestCommand.gzip(GzipInflaterTestText.noise(800_000), level: 1)
            try await Self.upload(
                server,
                "truncated.gz",
                Array(whole.prefix(whole.count - 20)),
                fields: #""contentEncoding":"gzip""#
            )
            await #expect(throws: (any Error).self) { try await Self.fetch(server, Self.v0("truncated.gz")) }
            let fine = try TestCommand.gzip(Array("still serving".utf8))
            try await Self.upload(server, "fine.gz", fine, fields: #""contentEncoding":"gzip""#)
            let served = try await Self.fetch(server, Self.v0("fine.gz"))
            #expect(served.status == 200 && served.body == Array("still serving".utf8))
        }
    }
}

/// Test data for gzip objects: text that compresses well and noise that does not (the system
/// `gzip` compresses them: `TestCommand.gzip`).
enum GzipInflaterTestText {
    static func make(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 100)
        var line = 0
        while bytes.count < count {
            bytes += Array("line \(line) of a log stored gzip-compressed\n".utf8)
            line += 1
        }
        return Array(bytes.prefix(count))
    }

    /// `count` bytes of a linear congruential sequence (deflate barely shrinks them).
    static func noise(_ count: Int) -> [UInt8] {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }
}
