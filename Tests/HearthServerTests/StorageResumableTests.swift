import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Resumable uploads over HTTP as the SDKs drive them: start, chunks at the offset reached, a
/// query, finalize (repeatable), cancel; wrong offsets and early finalizes refused with
/// `X-Goog-Upload-Status` on every answer.
@Suite struct StorageResumableTests {
    static let bucket = "hearth.appspot.com"
    static let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]

    static func start(_ server: TestServer, name: String, length: Int) async throws -> String {
        let reply = try await server.send(
            "POST",
            "/v0/b/\(bucket)/o?name=\(name)",
            headers: admin + [
                ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
                ("X-Goog-Upload-Header-Content-Length", "\(length)"),
                ("X-Goog-Upload-Header-Content-Type", "text/plain"),
                ("Content-Type", "application/json; charset=utf-8"),
            ],
            text: #"{"metadata":{"kind":"resumable"}}"#
        )
        #expect(reply.status == 200 && reply.headers.first(name: "X-Goog-Upload-Status") == "active")
        let url = try #require(reply.headers.first(name: "X-Goog-Upload-URL"))
        #expect(url.hasPrefix("http://127.0.0.1:\(server.port)/v0/b/\(bucket)/o?name=\(name)&upload_id="))
        return String(url.dropFirst("http://127.0.0.1:\(server.port)".count))
    }

    static func send(
        _ server: TestServer,
        _ session: String,
        _ command: String,
        offset: Int? = nil,
        _ text: String = ""
    )
        async throws -> TestServer.Reply
    {
        var headers = [("X-Goog-Upload-Command", command)]
        if let offset { headers.append(("X-Goog-Upload-Offset", "\(offset)")) }
        return try await server.send("POST", session, headers: headers, text: text)
    }

    @Test func chunksQueryAndFinalize() async throws {
        try await TestServer.with { server in
            let session = try await Self.start(server, name: "big.txt", length: 10)
            let first = try await Self.send(server, session, "upload", offset: 0, "01234")
            #expect(first.status == 200 && first.headers.first(name: "X-Goog-Upload-Status") == "active")
            let query = try await Self.send(server, session, "query")
            #expect(query.headers.first(name: "X-Goog-Upload-Size-Received") == "5")
            // A chunk at another offset writes nothing and says why.
            let wrong = try await Self.send(server, session, "upload", offset: 3, "34567")
            #expect(wrong.status == 400 && wrong.body.contains("offset 5"))
            #expect(wrong.headers.first(name: "X-Goog-Upload-Status") == "active")
            // A finalize before every announced byte is refused; the session goes on.
            let early = try await Self.send(server, session, "finalize")
            #expect(early.status == 400 && early.body.contains("5 of its 10 bytes"))
            let last = try await Self.send(server, session, "upload, finalize", offset: 5, "56789")
            #expect(last.status == 200 && last.headers.first(name: "X-Goog-Upload-Status") == "final")
            let object = try JSONSerialization.jsonObject(with: Data(last.body.utf8)) as? [String: Any]
            #expect(object?["size"] as? String == "10")
            #expect(object?["contentType"] as? String == "text/plain")
            #expect(object?["metadata"] as? [String: String] == ["kind": "resumable"])
            let again = try await Self.send(server, session, "finalize")
            #expect(again.status == 200 && again.body == last.body, "a repeated finalize answers the object again")
            let media = try await server.send("GET", "/v0/b/\(Self.bucket)/o/big.txt?alt=media", headers: Self.admin)
            #expect(media.body == "0123456789")
            let cancel = try await Self.send(server, session, "cancel")
            #expect(cancel.status == 400)
        }
    }

    @Test func cancelUnknownAndUnauthorized() async throws {
        try await TestServer.with { server in
            let session = try await Self.start(server, name: "gone.txt", length: 4)
            _ = try await Self.send(server, session, "upload", offset: 0, "ab")
            let cancel = try await Self.send(server, session, "cancel")
            #expect(cancel.status == 200 && cancel.headers.first(name: "X-Goog-Upload-Status") == "cancelled")
            let after = try await Self.send(server, session, "upload", offset: 2, "cd")
            #expect(after.status == 400)
            let unknown = try await Self.send(server, "/v0/b/\(Self.bucket)/o?name=x&upload_id=abc-def", "query")
            #expect(unknown.status == 404)
            let anonymous = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=x",
                headers: [("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start")],
                text: ""
            )
            #expect(anonymous.status == 403)
            let listing = try await server.send("GET", "/v0/b/\(Self.bucket)/o", headers: Self.admin)
            #expect(listing.body == #"{"items":[],"prefixes":[]}"#)
        }
    }
}
