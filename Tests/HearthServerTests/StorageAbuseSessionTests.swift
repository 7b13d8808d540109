import Foundation
import HearthTestSupport
import Testing

/// Many resumable sessions: past the configured cap (10,000 by default) a start is answered 429
/// with Firebase's error JSON and creates nothing; a finished or cancelled session frees its place.
/// (10,000 abandoned sessions, their cost and their expiry: `AbandonedSessionsTests`.)
@Suite struct StorageAbuseSessionTests {
    static func start(_ server: TestServer, _ name: String) async throws -> TestServer.Reply {
        try await server.send(
            "POST",
            "/v0/b/\(StorageAbuse.bucket)/o?name=\(name)",
            headers: StorageAbuse.admin + [
                ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
                ("X-Goog-Upload-Header-Content-Length", "4"),
            ],
            text: ""
        )
    }

    @Test func startsPastTheCapAreAnswered429AndCreateNothing() async throws {
        try await AbuseServer.with(configure: { configuration, _ in
            configuration.maxResumableSessions = 20
        }) { server, control in
            var sessions: [String] = []
            for index in 0..<20 {
                let reply = try await Self.start(server, "s\(index)")
                #expect(reply.status == 200)
                let url = try #require(reply.headers.first(name: "X-Goog-Upload-URL"))
                sessions.append(String(url.dropFirst("http://127.0.0.1:\(server.port)".count)))
            }
            let before = try await StorageAbuse.state(server)
            #expect(before.uploads.count == 20)
            for _ in 0..<3 {
                let refused = try await Self.start(server, "one-more")
                StorageAbuse.expectRefused(refused, 429, saying: "Too many resumable uploads are open")
            }
            try await control.check()
            #expect(try await StorageAbuse.state(server) == before)
            // A cancelled session and a finished one each free a place.
            let cancelled = try await StorageResumableTests.send(server, sessions[0], "cancel")
            #expect(cancelled.status == 200)
            #expect(try await Self.start(server, "after-cancel").status == 200)
            #expect(try await Self.start(server, "one-more").status == 429)
            let done = try await StorageResumableTests.send(server, sessions[1], "upload, finalize", offset: 0, "abcd")
            #expect(done.status == 200)
            #expect(try await Self.start(server, "after-finalize").status == 200)
            #expect(try await Self.start(server, "one-more").status == 429)
        }
    }
}
