import Foundation
import HearthTestSupport
import Testing

/// Slow uploads (slowloris on a body): the HTTP layer's idle timeout and minimum body rate apply
/// to storage bodies as to any other. A stalled or dribbled upload's connection is closed, its
/// part file removed and no object made; a stalled resumable chunk keeps the bytes that arrived
/// (as the protocol wants: `query` says how many) and the upload goes on from there.
@Suite struct StorageAbuseSlowTests {
    static let bucket = StorageAbuse.bucket

    /// Sends `head` and `body`, then nothing; waits until the server closes the connection.
    static func stall(_ server: TestServer, head: String, body: [UInt8]) async throws -> Duration {
        let port = server.port
        return try await onThread {
            let connection = try RawConnection(port: port, from: AbuseServer.attacker)
            let started = ContinuousClock.now
            connection.send(Array(head.utf8) + body)
            try connection.waitForClose(timeout: .seconds(30))
            return ContinuousClock.now - started
        }
    }

    static let auth = "Authorization: Bearer \(TestServer.adminSecret)\r\n"

    @Test func aStalledUploadIsClosedAtTheIdleTimeoutAndLeavesNothing() async throws {
        try await AbuseServer.with(configure: { configuration, _ in
            configuration.connections.idleTimeout = .seconds(1)
        }) { server, control in
            let before = try await StorageAbuse.state(server)
            let multipart =
                "X-Goog-Upload-Protocol: multipart\r\nContent-Type: multipart/related; boundary=b0undary\r\n"
            let uploads: [(String, String, [UInt8])] = [
                ("POST /v0/b/\(Self.bucket)/o?name=stalled.bin", Self.auth, Array(repeating: 0x41, count: 1000)),
                (
                    "POST /v0/b/\(Self.bucket)/o", Self.auth + multipart,
                    StorageAbuse.multipartBody(metadata: #"{"name":"m.bin"}"#, Array(repeating: 0x42, count: 1000))
                        .dropLast(20)
                ),
            ]
            for (line, headers, body) in uploads {
                let head = "\(line) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)Content-Length: 100000\r\n\r\n"
                async let stalled = Self.stall(server, head: head, body: body)
                try await control.check()
                let took = try await stalled
                #expect(took < .seconds(10), "\(line): closed after \(took)")
            }
            try await eventually { try await StorageAbuse.state(server) == before }
            #expect(try await StorageAbuse.state(server) == before)
        }
    }

    @Test func aDribbledUploadIsClosedByTheMinimumBodyRateAndLeavesNothing() async throws {
        try await AbuseServer.with(configure: { configuration, _ in
            configuration.connections.minBodyBytesPerSecond = 1_000
        }) { server, control in
            let before = try await StorageAbuse.state(server)
            let port = server.port
            async let attack = onThread { () -> Int in
                let connection = try RawConnection(port: port, from: AbuseServer.attacker)
                connection.send(
                    "POST /v0/b/\(Self.bucket)/o?name=dribbled.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\(Self.auth)"
                        + "Content-Length: 100000\r\n\r\n"
                )
                // A byte every 50 ms, well inside the idle timeout (75 s): only the rate ends it.
                let sent = connection.dribble("a", atMost: 400)
                try connection.waitForClose(timeout: .seconds(30))
                return sent
            }
            try await control.check()
            let sent = try await attack
            #expect(sent < 400, "closed after \(sent) body bytes")
            try await eventually { try await StorageAbuse.state(server) == before }
        }
    }

    @Test func aStalledResumableChunkKeepsWhatArrivedAndTheUploadGoesOn() async throws {
        try await AbuseServer.with(configure: { configuration, _ in
            configuration.connections.idleTimeout = .seconds(1)
        }) { server, _ in
            // Each request on a connection of its own: the 1 s idle timeout closes pooled ones.
            let start = try await StorageAbuse.raw(
                server,
                "POST",
                Array("/v0/b/\(Self.bucket)/o?name=slow.txt".utf8),
                headers: "X-Goog-Upload-Protocol: resumable\r\nX-Goog-Upload-Command: start\r\n"
                    + "X-Goog-Upload-Header-Content-Length: 10\r\n"
            )
            let url = try #require(start?.headers["x-goog-upload-url"], "\(String(describing: start))")
            // The raw request's Host has no port, so neither has the session URL.
            let session = String(url[try #require(url.range(of: "/v0/b/")).lowerBound...])
            let head =
                "POST \(session) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Goog-Upload-Command: upload\r\n"
                + "X-Goog-Upload-Offset: 0\r\nContent-Length: 10\r\n\r\n"
            let took = try await Self.stall(server, head: head, body: Array("0123".utf8))
            #expect(took < .seconds(10))
            let query = try await eventually {
                try await StorageAbuse.raw(
                    server,
                    "POST",
                    Array(session.utf8),
                    headers: "X-Goog-Upload-Command: query\r\n"
                )
            } until: {
                $0?.headers["x-goog-upload-size-received"] == "4"
            }
            #expect(query?.headers["x-goog-upload-status"] == "active", "\(String(describing: query))")
            let rest = try await StorageAbuse.raw(
                server,
                "POST",
                Array(session.utf8),
                headers: "X-Goog-Upload-Command: upload, finalize\r\nX-Goog-Upload-Offset: 4\r\n",
                body: Array("456789".utf8)
            )
            #expect(rest?.status == 200, "\(String(describing: rest))")
            let media = try await StorageAbuse.raw(
                server,
                "GET",
                Array("/v0/b/\(Self.bucket)/o/slow.txt?alt=media".utf8)
            )
            #expect(media?.body == "0123456789")
            let state = try await StorageAbuse.state(server)
            #expect(state.temporary.isEmpty && state.uploads.isEmpty && state.objects.count == 1, "\(state)")
        }
    }
}
