import Foundation
import HearthTestSupport
import Testing

/// Downloads on plain HTTP go out by `sendfile` (`FileRegionBody`): whole objects, ranges, HEAD,
/// a keep-alive request after one, and a connection dropped mid-download (its file closed).
@Suite struct StorageDownloadTests {
    static let admin = StorageClientAPITests.admin

    /// `count` bytes of numbered lines (15 digits and a newline each), so a byte out of place or
    /// missing shows. Made digit by digit: a test's own work runs on the threads the server in
    /// this process needs too, so it stays cheap.
    static func numberedLines(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: UInt8(ascii: "\n"), count: count)
        bytes.withUnsafeMutableBufferPointer { out in
            var (start, line) = (0, 0)
            while start < count {
                var number = line
                for offset in stride(from: 14, through: 0, by: -1) {
                    if start + offset < count { out[start + offset] = UInt8(ascii: "0") + UInt8(number % 10) }
                    number /= 10
                }
                (start, line) = (start + 16, line + 1)
            }
        }
        return bytes
    }

    static func upload(_ server: TestServer, _ name: String, _ bytes: [UInt8]) async throws -> [String: Any] {
        let reply = try await server.send(
            "POST",
            "/v0/b/\(StorageClientAPITests.bucket)/o?name=\(name)",
            headers: admin + [("Content-Type", "text/plain")],
            body: bytes,
            timeout: .seconds(120)  // 24 MB through a debug build while the whole suite runs
        )
        #expect(reply.status == 200, "\(reply.body)")
        return try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any] ?? [:]
    }

    /// Runs a blocking read of a `RawConnection` on a dispatch thread: the server answering it
    /// runs in this process, on the few threads a blocked test would otherwise hold.
    static func aside<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Descriptors of this process (the server runs in it) open on `path`.
    static func openDescriptors(on path: String) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path
        }
        .count
    }

    @Test func wholeObjectsRangesAndHeadBySendfile() async throws {
        try await TestServer.with { server in
            let bytes = Self.numberedLines(3 << 20 + 17)
            let uploaded = try await Self.upload(server, "big.txt", bytes)
            let url = StorageClientAPITests.objectURL("big.txt", query: "alt=media")

            let whole = try await server.send("GET", url, headers: Self.admin)
            #expect(whole.status == 200)
            #expect(whole.headers.first(name: "Content-Length") == String(bytes.count))
            #expect(Array(whole.body.utf8) == bytes)
            let hash = try #require(whole.headers.first(name: "x-goog-hash"))
            #expect(hash.hasSuffix("md5=\(uploaded["md5Hash"] as? String ?? "?")"))

            let middle = try await server.send("GET", url, headers: Self.admin + [("Range", "bytes=1000000-2999999")])
            #expect(middle.status == 206)
            #expect(middle.headers.first(name: "Content-Range") == "bytes 1000000-2999999/\(bytes.count)")
            #expect(Array(middle.body.utf8) == Array(bytes[1_000_000..<3_000_000]))
            let past = try await server.send("GET", url, headers: Self.admin + [("Range", "bytes=\(bytes.count)-")])
            #expect(past.status == 416)

            let head = try await server.send("HEAD", url, headers: Self.admin)
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.headers.first(name: "Content-Length") == String(bytes.count))

            let token = try #require(uploaded["downloadTokens"] as? String)
            let byToken = try await server.send(
                "GET",
                StorageClientAPITests.objectURL("big.txt", query: "alt=media&token=\(token)")
            )
            #expect(byToken.status == 200 && Array(byToken.body.utf8) == bytes)
        }
    }

    @Test func aKeepAliveConnectionServesRequestsAfterADownload() async throws {
        try await TestServer.with { server in
            let bytes = Self.numberedLines(700_000)
            _ = try await Self.upload(server, "k.txt", bytes)
            let connection = try RawConnection(port: server.port)
            defer { connection.closeSocket() }
            let target = StorageClientAPITests.objectURL("k.txt", query: "alt=media")
            let request =
                "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(TestServer.adminSecret)\r\n\r\n"
            for round in 0..<3 {
                connection.send(request)
                let response = try #require(try await Self.aside { try connection.readResponse() }, "round \(round)")
                #expect(response.status == 200)
                #expect(Array(response.body.utf8) == bytes, "round \(round)")
            }
            connection.send("GET /.well-known/hearth/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let health = try #require(try await Self.aside { try connection.readResponse() })
            #expect(health.status == 200 && health.body.contains("ok"))
        }
    }

    @Test(arguments: [false, true])
    func aDownloadCutOffClosesItsFile(reset: Bool) async throws {
        try await TestServer.with { server in
            let uploaded = try await Self.upload(server, "cut.bin", [UInt8](repeating: 0x61, count: 24 << 20))
            let generation = try #require(uploaded["generation"] as? String)
            let file = server.directory.appendingPathComponent("data/storage/objects/\(generation)").path
            #expect(Self.openDescriptors(on: file) == 0)

            let connection = try RawConnection(port: server.port)
            let target = StorageClientAPITests.objectURL("cut.bin", query: "alt=media")
            connection.send(
                "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(TestServer.adminSecret)\r\n\r\n"
            )
            // The answer has started and stalls on a client that reads no more: the file is open.
            try await Self.aside { try connection.readUntil(contains: "HTTP/1.1 200") }
            let open = try await eventually({ Self.openDescriptors(on: file) }, until: { $0 == 1 })
            #expect(open == 1)

            if reset { connection.abortSocket() } else { connection.closeSocket() }
            let after = try await eventually({ Self.openDescriptors(on: file) }, until: { $0 == 0 })
            #expect(after == 0, "the download's file stays open after its connection ended")

            // The server serves on.
            let reply = try await server.send(
                "GET",
                StorageClientAPITests.objectURL("cut.bin"),
                headers: Self.admin,
                timeout: .seconds(120)
            )
            #expect(reply.status == 200)
        }
    }
}
