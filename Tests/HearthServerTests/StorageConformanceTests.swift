import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// What the Firebase Storage emulator's conformance tests (firebase-tools
/// `scripts/storage-emulator-integration/conformance/`) ask of the client API beyond the SDKs'
/// plain requests, and the default bucket: `X-HTTP-Method-Override` and `PUT`, a resumable start
/// with the name in the path, `create_token` and `delete_token`, a multipart upload without a
/// boundary, and the buckets of the JSON API.
@Suite struct StorageConformanceTests {
    static let bucket = StorageClientAPITests.bucket
    static let admin = StorageClientAPITests.admin

    static func json(_ reply: TestServer.Reply) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any] ?? [:]
    }

    static func tokens(_ reply: TestServer.Reply) throws -> [String] {
        try #require(try json(reply)["downloadTokens"] as? String).split(separator: ",").map(String.init)
    }

    @Test func methodOverrideAndPut() async throws {
        try await TestServer.with { server in
            _ = try await StorageClientAPITests.upload(server, "o.txt", "abc")
            let url = StorageClientAPITests.objectURL("o.txt")
            let patched = try await server.send(
                "PUT",
                url,
                headers: Self.admin + [("X-HTTP-Method-Override", "patch"), ("Content-Type", "application/json")],
                text: #"{"contentType":"image/png","metadata":{"a":"1"}}"#
            )
            #expect(patched.status == 200, "\(patched.body)")
            #expect(try Self.json(patched)["contentType"] as? String == "image/png")
            #expect(try Self.json(patched)["metageneration"] as? String == "2")
            let bytes = try await server.send("GET", StorageClientAPITests.objectURL("o.txt", query: "alt=media"))
            #expect(bytes.status == 403)  // no token, no credential: the override did not open reads

            // A plain PUT uploads, as a POST does.
            let put = try await server.send(
                "PUT",
                "/v0/b/\(Self.bucket)/o?name=p.txt",
                headers: Self.admin + [("Content-Type", "text/plain")],
                text: "put bytes"
            )
            #expect(put.status == 200)
            #expect(try Self.json(put)["size"] as? String == "9")

            let deleted = try await server.send(
                "POST",
                url,
                headers: Self.admin + [("X-HTTP-Method-Override", "DELETE")],
                text: ""
            )
            #expect(deleted.status == 204)
            #expect(try await server.send("GET", url, headers: Self.admin).status == 404)

            // The override is a method, not a credential.
            let anonymous = try await server.send(
                "PUT",
                StorageClientAPITests.objectURL("p.txt"),
                headers: [("X-HTTP-Method-Override", "PATCH")],
                text: "{}"
            )
            #expect(anonymous.status == 403)
        }
    }

    @Test func aResumableStartWithTheNameInThePath() async throws {
        try await TestServer.with { server in
            let start = try await server.send(
                "POST",
                StorageClientAPITests.objectURL("testing/storage_ref/image.png", query: "uploadType=resumable"),
                headers: Self.admin + [("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start")],
                text: ""
            )
            #expect(start.status == 200, "\(start.body)")
            let url = try #require(start.headers.first(name: "X-Goog-Upload-URL"))
            let session = String(url.dropFirst("http://127.0.0.1:\(server.port)".count))
            let final = try await server.send(
                "PUT",
                session,
                headers: [
                    ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "upload, finalize"),
                    ("X-Goog-Upload-Offset", "0"),
                ],
                text: "resumed"
            )
            #expect(final.status == 200 && final.headers.first(name: "X-Goog-Upload-Status") == "final")
            #expect(try Self.json(final)["name"] as? String == "testing/storage_ref/image.png")
            let bytes = try await server.send(
                "GET",
                StorageClientAPITests.objectURL("testing/storage_ref/image.png", query: "alt=media"),
                headers: Self.admin
            )
            #expect(bytes.status == 200 && bytes.body == "resumed")
        }
    }

    @Test func createAndDeleteDownloadTokens() async throws {
        try await TestServer.with { server in
            let uploaded = try await StorageClientAPITests.upload(server, "t.txt", "token me")
            let first = try #require(uploaded["downloadTokens"] as? String)
            let url = "/v0/b/\(Self.bucket)/o/t.txt"

            let created = try await server.send("POST", url + "?create_token=true", headers: Self.admin, text: "")
            #expect(created.status == 200)
            let two = try Self.tokens(created)
            #expect(two.count == 2 && two[0] == first && two[1] != first)

            let invalid = try await server.send("POST", url + "?create_token=yes", headers: Self.admin, text: "")
            #expect(invalid.status == 400 && invalid.body.contains("create_token"))
            let stranger = try await server.send(
                "POST",
                url + "?create_token=true",
                headers: [("Authorization", "Bearer somethingElse")],
                text: ""
            )
            #expect(stranger.status == 401 || stranger.status == 403)
            let anonymous = try await server.send("POST", url + "?delete_token=\(first)", text: "")
            #expect(anonymous.status == 403)

            let deleted = try await server.send("POST", url + "?delete_token=\(first)", headers: Self.admin, text: "")
            #expect(deleted.status == 200)
            #expect(try Self.tokens(deleted) == [two[1]])
            let revoked = try await server.send("GET", url + "?alt=media&token=\(first)")
            #expect(revoked.status == 403)
            let kept = try await server.send("GET", url + "?alt=media&token=\(two[1])")
            #expect(kept.status == 200 && kept.body == "token me")

            // Removing the last token makes a new one: the object keeps a download URL.
            let last = try await server.send("POST", url + "?delete_token=\(two[1])", headers: Self.admin, text: "")
            let renewed = try Self.tokens(last)
            #expect(renewed.count == 1 && renewed != [two[1]])

            let missing = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o/none.txt?create_token=true",
                headers: Self.admin,
                text: ""
            )
            #expect(missing.status == 404)
        }
    }

    @Test func aMultipartUploadWithoutABoundaryIsABadContentType() async throws {
        try await TestServer.with { server in
            let reply = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o/?name=testing%2Fstorage_ref%2Fimage.png",
                headers: Self.admin + [("X-Goog-Upload-Protocol", "multipart"), ("Content-Type", "foo")],
                text: ""
            )
            #expect(reply.status == 400 && reply.body.contains("Bad content type"), "\(reply.body)")
        }
    }

    @Test func theDefaultBucketIsTheProjects() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.accounts.projectID = "demo-chat"
        }) { server in
            let empty = try await server.send("GET", "/storage/v1/b?project=demo-chat", headers: Self.admin)
            #expect(empty.status == 200)
            let names = { (reply: TestServer.Reply) throws -> [String] in
                (try Self.json(reply)["items"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            }
            #expect(try names(empty) == ["demo-chat.appspot.com"])

            for bucket in ["b-other", "demo-chat.appspot.com", "a-first"] {
                let reply = try await server.send(
                    "POST",
                    "/v0/b/\(bucket)/o?name=x.txt",
                    headers: Self.admin + [("Content-Type", "text/plain")],
                    text: bucket
                )
                #expect(reply.status == 200)
            }
            let listed = try await server.send("GET", "/storage/v1/b", headers: Self.admin)
            #expect(try names(listed) == ["demo-chat.appspot.com", "a-first", "b-other"])

            let one = try await server.send("GET", "/storage/v1/b/demo-chat.appspot.com", headers: Self.admin)
            #expect(one.status == 200)
            #expect(try Self.json(one)["kind"] as? String == "storage#bucket")
            #expect(try Self.json(one)["name"] as? String == "demo-chat.appspot.com")
            let bad = try await server.send("GET", "/storage/v1/b/Not%20A%20Bucket", headers: Self.admin)
            #expect(bad.status == 400)
            let anonymous = try await server.send("GET", "/storage/v1/b")
            #expect(anonymous.status == 403)
        }
    }
}
