import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Firebase Storage's client API on a real server (`/v0/b/{bucket}/o…`), as far as it is built:
/// media uploads, metadata, downloads with ranges and tokens, deletes and listings, for the
/// admin; everyone else is refused (no storage rules yet), except a download with the object's
/// token.
@Suite struct StorageClientAPITests {
    static let bucket = "hearth.appspot.com"
    static let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]

    static func objectURL(_ name: String, query: String = "") -> String {
        let encoded = name.addingPercentEncoding(
            withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-_.~"))
        )!
        return "/v0/b/\(bucket)/o/\(encoded)" + (query.isEmpty ? "" : "?" + query)
    }

    static func upload(
        _ server: TestServer,
        _ name: String,
        _ text: String,
        type: String = "text/plain"
    ) async throws
        -> [String: Any]
    {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let reply = try await server.send(
            "POST",
            "/v0/b/\(bucket)/o?name=\(encoded)",
            headers: admin + [("Content-Type", type)],
            text: text
        )
        #expect(reply.status == 200, "\(reply.body)")
        return try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any] ?? [:]
    }

    @Test func anUploadIsServedBackWithItsMetadata() async throws {
        try await TestServer.with { server in
            let uploaded = try await Self.upload(server, "users/u1/hello.txt", "hello")
            #expect(uploaded["name"] as? String == "users/u1/hello.txt")
            #expect(uploaded["bucket"] as? String == Self.bucket)
            #expect(uploaded["size"] as? String == "5")
            #expect(uploaded["md5Hash"] as? String == "XUFAKrxLKna5cZ2REBfFkg==")
            #expect(uploaded["contentType"] as? String == "text/plain")
            #expect(uploaded["metageneration"] as? String == "1")
            let token = try #require(uploaded["downloadTokens"] as? String)

            let metadata = try await server.send("GET", Self.objectURL("users/u1/hello.txt"), headers: Self.admin)
            #expect(metadata.status == 200)
            #expect(
                metadata.body
                    == String(
                        decoding: try JSONSerialization.data(
                            withJSONObject: uploaded,
                            options: [.sortedKeys, .withoutEscapingSlashes]
                        ),
                        as: UTF8.self
                    )
            )

            let bytes = try await server.send(
                "GET",
                Self.objectURL("users/u1/hello.txt", query: "alt=media"),
                headers: Self.admin
            )
            #expect(bytes.status == 200 && bytes.body == "hello")
            #expect(bytes.headers.first(name: "Content-Type") == "text/plain")
            #expect(bytes.headers.first(name: "x-goog-hash") == "crc32c=mnG7TA==,md5=XUFAKrxLKna5cZ2REBfFkg==")

            // The download token reads the bytes without a credential; another token does not.
            let byToken = try await server.send(
                "GET",
                Self.objectURL("users/u1/hello.txt", query: "alt=media&token=\(token)")
            )
            #expect(byToken.status == 200 && byToken.body == "hello")
            let wrongToken = try await server.send(
                "GET",
                Self.objectURL("users/u1/hello.txt", query: "alt=media&token=nope")
            )
            #expect(wrongToken.status == 403)
            #expect(wrongToken.body.contains(#""code":403"#))
        }
    }

    @Test func rangesAnswer206AndPastTheEnd416() async throws {
        try await TestServer.with { server in
            _ = try await Self.upload(server, "r.txt", "0123456789")
            let url = Self.objectURL("r.txt", query: "alt=media")
            let middle = try await server.send("GET", url, headers: Self.admin + [("Range", "bytes=2-5")])
            #expect(middle.status == 206 && middle.body == "2345")
            #expect(middle.headers.first(name: "Content-Range") == "bytes 2-5/10")
            let tail = try await server.send("GET", url, headers: Self.admin + [("Range", "bytes=-3")])
            #expect(tail.status == 206 && tail.body == "789")
            let open = try await server.send("GET", url, headers: Self.admin + [("Range", "bytes=7-")])
            #expect(open.status == 206 && open.body == "789")
            let past = try await server.send("GET", url, headers: Self.admin + [("Range", "bytes=10-12")])
            #expect(past.status == 416)
            #expect(past.headers.first(name: "Content-Range") == "bytes */10")
        }
    }

    @Test func deleteAndListing() async throws {
        try await TestServer.with { server in
            for name in ["chats/c1/a.jpg", "chats/c1/b.jpg", "chats/c2/c.jpg", "top.txt"] {
                _ = try await Self.upload(server, name, name)
            }
            let top = try await server.send("GET", "/v0/b/\(Self.bucket)/o?delimiter=%2F", headers: Self.admin)
            #expect(top.status == 200)
            #expect(top.body == #"{"items":[{"bucket":"hearth.appspot.com","name":"top.txt"}],"prefixes":["chats/"]}"#)
            let c1 = try await server.send(
                "GET",
                "/v0/b/\(Self.bucket)/o?prefix=chats%2Fc1%2F&delimiter=%2F&maxResults=1",
                headers: Self.admin
            )
            let page = try JSONSerialization.jsonObject(with: Data(c1.body.utf8)) as? [String: Any]
            #expect((page?["items"] as? [[String: String]])?.map { $0["name"] } == ["chats/c1/a.jpg"])
            #expect(page?["nextPageToken"] is String)

            let deleted = try await server.send("DELETE", Self.objectURL("chats/c1/a.jpg"), headers: Self.admin)
            #expect(deleted.status == 204)
            let gone = try await server.send("GET", Self.objectURL("chats/c1/a.jpg"), headers: Self.admin)
            #expect(gone.status == 404)
            #expect(gone.body.contains(#""code":404"#))
        }
    }

    @Test func withoutTheAdminCredentialEverythingIsRefused() async throws {
        try await TestServer.with { server in
            _ = try await Self.upload(server, "private.txt", "secret")
            let user = [("Authorization", "Firebase \(TokenMinter.token(uid: "ada"))")]
            for (method, url) in [
                ("GET", Self.objectURL("private.txt")), ("GET", Self.objectURL("private.txt", query: "alt=media")),
                ("DELETE", Self.objectURL("private.txt")), ("GET", "/v0/b/\(Self.bucket)/o"),
                ("POST", "/v0/b/\(Self.bucket)/o?name=x.txt"),
            ] {
                let reply = try await server.send(method, url, headers: user, text: "x")
                #expect(reply.status == 403, "\(method) \(url)")
            }
            let still = try await server.send(
                "GET",
                Self.objectURL("private.txt", query: "alt=media"),
                headers: Self.admin
            )
            #expect(still.body == "secret")
        }
    }

    @Test func badNamesAndOversizedBodiesAreRefusedClearly() async throws {
        try await TestServer.with(prepare: { _, _ in }) { server in
            let bad = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=a%2F%2Fb",
                headers: Self.admin,
                text: "x"
            )
            #expect(bad.status == 400 && bad.body.contains("empty segment"))
            let badBucket = try await server.send("POST", "/v0/b/Bad%20Bucket/o?name=a", headers: Self.admin, text: "x")
            #expect(badBucket.status == 400)
            let unnamed = try await server.send("POST", "/v0/b/\(Self.bucket)/o", headers: Self.admin, text: "x")
            #expect(unnamed.status == 400 && unnamed.body.contains("?name="))
            let listing = try await server.send("GET", "/v0/b/\(Self.bucket)/o", headers: Self.admin)
            #expect(listing.body == #"{"items":[],"prefixes":[]}"#, "nothing was stored")
        }
    }

    @Test func anObjectPastTheLimitIsRefused413AndNothingStays() async throws {
        try await TestServer.with(prepare: { configuration, _ in configuration.maxObjectSize = 10 }) { server in
            let announced = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=big.bin",
                headers: Self.admin,
                text: String(repeating: "x", count: 11)
            )
            #expect(announced.status == 413)
            #expect(announced.body.contains("10 bytes"))
            let fits = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=ok.bin",
                headers: Self.admin,
                text: "0123456789"
            )
            #expect(fits.status == 200)
            let listing = try await server.send("GET", "/v0/b/\(Self.bucket)/o", headers: Self.admin)
            #expect(listing.body == #"{"items":[{"bucket":"hearth.appspot.com","name":"ok.bin"}],"prefixes":[]}"#)
        }
    }

    /// The SDKs' `uploadBytes`: a multipart/related body whose JSON part names the object and
    /// sets its type and custom metadata; the bytes part's own type is not the object's.
    @Test func aMultipartUploadAsTheSDKSendsIt() async throws {
        try await TestServer.with { server in
            let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x2D, 0x2D, 0x00, 0xFF]
            let metadata = #"{"name":"chats/c1/p.png","contentType":"image/png","metadata":{"chatId":"c1"}}"#
            let body =
                Array("--b0undary\r\nContent-Type: application/json; charset=utf-8\r\n\r\n\(metadata)\r\n".utf8)
                + Array("--b0undary\r\nContent-Type: application/octet-stream\r\n\r\n".utf8) + bytes
                + Array("\r\n--b0undary--".utf8)
            let headers =
                Self.admin + [
                    ("X-Goog-Upload-Protocol", "multipart"), ("Content-Type", "multipart/related; boundary=b0undary"),
                ]
            let reply = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=chats%2Fc1%2Fp.png",
                headers: headers,
                body: body
            )
            #expect(reply.status == 200, "\(reply.body)")
            let uploaded = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
            #expect(uploaded?["contentType"] as? String == "image/png")
            #expect(uploaded?["size"] as? String == "10")
            #expect(uploaded?["metadata"] as? [String: String] == ["chatId": "c1"])
            let media = try await server.send(
                "GET",
                Self.objectURL("chats/c1/p.png", query: "alt=media"),
                headers: Self.admin
            )
            #expect(Array(media.body.utf8) == Array(String(decoding: bytes, as: UTF8.self).utf8))

            let noBoundary = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=x",
                headers: Self.admin + [("X-Goog-Upload-Protocol", "multipart"), ("Content-Type", "text/plain")],
                text: "x"
            )
            #expect(noBoundary.status == 400 && noBoundary.body.contains("Bad content type"))
            let cut = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=cut.png",
                headers: headers,
                body: Array(body.dropLast(4))
            )
            #expect(cut.status == 400 && cut.body.contains("closing boundary"))
            let listing = try await server.send("GET", "/v0/b/\(Self.bucket)/o?prefix=c", headers: Self.admin)
            #expect(
                listing.body == #"{"items":[{"bucket":"hearth.appspot.com","name":"chats/c1/p.png"}],"prefixes":[]}"#
            )
        }
    }

    /// The SDKs send `Authorization: Firebase <token>`; under `--emulator` the mock token
    /// `owner` is the admin, as Firebase's emulator has it. Every answer carries CORS and exposes
    /// the upload protocol's headers.
    @Test func theFirebaseSchemeAndCORS() async throws {
        try await TestServer.with(prepare: { configuration, _ in configuration.emulator = true }) { server in
            let firebase = [("Authorization", "Firebase owner")]
            let reply = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=by-owner.txt",
                headers: firebase,
                text: "hi"
            )
            #expect(reply.status == 200)
            #expect(reply.headers.first(name: "Access-Control-Allow-Origin") == "*")
            #expect(reply.headers.first(name: "Access-Control-Expose-Headers")?.contains("X-Goog-Upload-URL") == true)
            let secret = [("Authorization", "Firebase \(TestServer.adminSecret)")]
            #expect(try await server.send("GET", Self.objectURL("by-owner.txt"), headers: secret).status == 200)
            let refused = try await server.send(
                "GET",
                Self.objectURL("by-owner.txt"),
                headers: [("Authorization", "Basic x")]
            )
            #expect(refused.status == 401)
            #expect(refused.headers.first(name: "Access-Control-Allow-Origin") == "*")
            let forged = try await server.send(
                "GET",
                Self.objectURL("by-owner.txt"),
                headers: [("Authorization", "Firebase not.a.token")]
            )
            #expect(forged.status == 401 && forged.body.contains("not a valid credential"))
        }
    }
}
