import Foundation
import HearthTestSupport
import Testing

/// What the storage abuse tests share: the admin's headers and URLs, raw requests (what HTTP
/// client libraries will not send), and a snapshot of everything storage keeps (the files in
/// `objects/`, `tmp/` and `uploads/`, and the bucket's listing) that a refused request must leave
/// as it was.
enum StorageAbuse {
    static let bucket = "hearth.appspot.com"
    static let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]

    /// Everything an upload could leave behind.
    struct State: Equatable, CustomStringConvertible {
        var objects: [String]
        var temporary: [String]
        var uploads: [String]
        var listing: String

        var description: String {
            "objects \(objects), tmp \(temporary), uploads \(uploads), listing \(listing)"
        }
    }

    static func storageDirectory(_ server: TestServer) -> URL {
        server.directory.appendingPathComponent("data/storage")
    }

    static func state(_ server: TestServer) async throws -> State {
        let root = storageDirectory(server)
        func files(_ folder: String) -> [String] {
            let names = try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
            return (names ?? []).sorted()
        }
        // On a connection of its own: the slow tests' short idle timeout closes pooled ones.
        let listing = try #require(try await raw(server, "GET", Array("/v0/b/\(bucket)/o".utf8)))
        return State(
            objects: files("objects"),
            temporary: files("tmp"),
            uploads: files("uploads"),
            listing: listing.body
        )
    }

    /// `reply` is `status` with Firebase's error JSON, its message containing `words`.
    static func expectRefused(
        _ reply: TestServer.Reply,
        _ status: Int,
        saying words: String,
        _ comment: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectRefused(status: reply.status, body: reply.body, status, saying: words, comment, sourceLocation)
    }

    static func expectRefused(
        status got: Int,
        body: String,
        _ status: Int,
        saying words: String,
        _ comment: String = "",
        _ sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(got == status, "\(comment): \(got) \(body)", sourceLocation: sourceLocation)
        let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        let error = json?["error"] as? [String: Any]
        #expect(error?["code"] as? Int == status, "\(comment): \(body)", sourceLocation: sourceLocation)
        let message = error?["message"] as? String ?? ""
        #expect(message.contains(words), "\(comment): \(body)", sourceLocation: sourceLocation)
    }

    /// `name` percent-encoded as the SDKs encode it (`encodeURIComponent`).
    static func encoded(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-_.~")))!
    }

    /// A media upload of `text` to `?name=` followed by `query` spelled as given.
    static func upload(_ server: TestServer, query: String, _ text: String = "x") async throws -> TestServer.Reply {
        try await server.send(
            "POST",
            "/v0/b/\(bucket)/o?\(query)",
            headers: admin + [("Content-Type", "text/plain")],
            text: text
        )
    }

    /// A multipart body as the SDKs' `uploadBytes` sends it, boundary `b0undary`.
    static func multipartBody(metadata: String, _ bytes: [UInt8]) -> [UInt8] {
        Array("--b0undary\r\nContent-Type: application/json; charset=utf-8\r\n\r\n\(metadata)\r\n".utf8)
            + Array("--b0undary\r\nContent-Type: application/octet-stream\r\n\r\n".utf8) + bytes
            + Array("\r\n--b0undary--".utf8)
    }

    static let multipartHeaders =
        admin + [("X-Goog-Upload-Protocol", "multipart"), ("Content-Type", "multipart/related; boundary=b0undary")]

    /// A request sent byte for byte on a socket of its own (`Connection: close`), with the
    /// admin's credential; its response, nil when the server closed without one.
    static func raw(
        _ server: TestServer,
        _ method: String,
        _ target: [UInt8],
        headers: String = "",
        body: [UInt8] = []
    ) async throws -> RawConnection.Response? {
        let port = server.port
        return try await onThread {
            let connection = try RawConnection(port: port)
            let head =
                "HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(TestServer.adminSecret)\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\n\(headers)\r\n"
            connection.send(Array("\(method) ".utf8) + target + Array(" \(head)".utf8) + body)
            return try connection.readResponse(timeout: .seconds(20))
        }
    }
}
