import Foundation
import HearthTestSupport
import Testing

/// Hostile object and bucket names against a real server, by every way a name comes in (an
/// upload's `?name=`, a multipart upload's metadata, a resumable start, the object's URL): each
/// is refused 400 with Firebase's error JSON saying what is wrong, and nothing changes on disk
/// or in the catalog. Names are percent-decoded once, never twice (the emulator decodes twice).
@Suite struct StorageAbuseNameTests {
    /// Names as sent in a query or URL (already percent-encoded), and what the refusal says.
    static let hostile: [(String, String)] = [
        ("a%2F%2Fb", "empty segment"), ("%2Fa", "empty segment"), ("a%2F", "empty segment"),
        ("a%0D%0Ab", "line break"), ("a%0Ab", "line break"), ("a%0Db", "line break"),
        (String(repeating: "x", count: 1025), "1025 bytes long"),
        (String(repeating: "%C3%A9", count: 513), "1026 bytes long"),
        ("..", "'..' segment"), (".", "'.' segment"), ("a%2F..%2Fb", "'..' segment"),
        ("a%2F%2E%2E%2Fb", "'..' segment"), ("..%2F..%2Fetc%2Fpasswd", "'..' segment"),
        ("a%00b", "NUL"), ("%00", "NUL"),
    ]

    /// Overlong UTF-8 for '.' and '/' (as old decoders took them), a lone continuation byte, a
    /// broken escape: not UTF-8, or not an escape at all. HTTP clients re-encode these, so they
    /// go out byte for byte (`StorageAbuse.raw`).
    static let undecodable = ["%C0%AE%C0%AE", "a%C0%AFb", "%80", "a%2", "a%zzb", "%FF%FE"]

    @Test func hostileNamesAreRefused400ByEveryWayInAndChangeNothing() async throws {
        try await AbuseServer.with { server, control in
            let before = try await StorageAbuse.state(server)
            let bucket = StorageAbuse.bucket
            for (name, words) in Self.hostile {
                let media = try await StorageAbuse.upload(server, query: "name=\(name)")
                StorageAbuse.expectRefused(media, 400, saying: words, "media ?name=\(name)")
                let resumable = try await server.send(
                    "POST",
                    "/v0/b/\(bucket)/o?name=\(name)",
                    headers: StorageAbuse.admin + [
                        ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
                    ],
                    text: ""
                )
                StorageAbuse.expectRefused(resumable, 400, saying: words, "resumable ?name=\(name)")
                for method in ["GET", "DELETE", "PATCH"] {
                    let reply = try await server.send(
                        method,
                        "/v0/b/\(bucket)/o/\(name)",
                        headers: StorageAbuse.admin,
                        text: method == "PATCH" ? #"{"contentType":"text/html"}"# : ""
                    )
                    StorageAbuse.expectRefused(reply, 400, saying: words, "\(method) /o/\(name)")
                }
                let gcs = try await server.send("GET", "/storage/v1/b/\(bucket)/o/\(name)", headers: StorageAbuse.admin)
                StorageAbuse.expectRefused(gcs, 400, saying: words, "GCS GET /o/\(name)")
            }
            try await control.check()
            #expect(try await StorageAbuse.state(server) == before)
        }
    }

    @Test func undecodableNamesAreRefused400ByEveryWayIn() async throws {
        try await AbuseServer.with { server, _ in
            let before = try await StorageAbuse.state(server)
            let bucket = StorageAbuse.bucket
            let resumable = "X-Goog-Upload-Protocol: resumable\r\nX-Goog-Upload-Command: start\r\n"
            for name in Self.undecodable {
                let requests: [(String, String, String)] = [
                    ("POST", "/v0/b/\(bucket)/o?name=\(name)", "Content-Type: text/plain\r\n"),
                    ("POST", "/v0/b/\(bucket)/o?name=\(name)", resumable),
                    ("POST", "/v0/b/\(bucket)/o?name=ok&upload_id=\(name)", "X-Goog-Upload-Command: query\r\n"),
                    ("GET", "/v0/b/\(bucket)/o/\(name)", ""), ("DELETE", "/v0/b/\(bucket)/o/\(name)", ""),
                    ("PATCH", "/v0/b/\(bucket)/o/\(name)", ""), ("GET", "/storage/v1/b/\(bucket)/o/\(name)", ""),
                    ("POST", "/upload/storage/v1/b/\(bucket)/o?uploadType=media&name=\(name)", ""),
                    ("GET", "/v0/b/\(bucket)/o?prefix=\(name)", ""), ("GET", "/v0/b/\(name)/o", ""),
                ]
                for (method, target, headers) in requests {
                    let reply = try await StorageAbuse.raw(
                        server,
                        method,
                        Array(target.utf8),
                        headers: headers,
                        body: Array("x".utf8)
                    )
                    StorageAbuse.expectRefused(
                        status: reply?.status ?? 0,
                        body: reply?.body ?? "",
                        400,
                        saying: "not percent-encoded UTF-8",
                        "\(method) \(target)"
                    )
                }
            }
            #expect(try await StorageAbuse.state(server) == before)
        }
    }

    /// The name in a multipart upload's metadata is JSON, not percent-encoded: the same names,
    /// written as JSON strings, are refused by the same checks.
    @Test func hostileNamesInMultipartMetadataAreRefused() async throws {
        try await AbuseServer.with { server, _ in
            let before = try await StorageAbuse.state(server)
            let names: [(String, String)] = [
                ("a//b", "empty segment"), ("a\\r\\nb", "line break"), ("a/../b", "'..' segment"),
                ("a\\u0000b", "NUL"), (String(repeating: "y", count: 1025), "1025 bytes long"), ("", "is empty"),
            ]
            for (name, words) in names {
                let body = StorageAbuse.multipartBody(metadata: #"{"name":"\#(name)"}"#, Array("bytes".utf8))
                let reply = try await server.send(
                    "POST",
                    "/v0/b/\(StorageAbuse.bucket)/o",
                    headers: StorageAbuse.multipartHeaders,
                    body: body
                )
                StorageAbuse.expectRefused(reply, 400, saying: words, "multipart name \(name)")
            }
            #expect(try await StorageAbuse.state(server) == before)
        }
    }

    /// `%25` decodes to a literal `%` once: `a%252F..%252Fb` names the object `a%2F..%2Fb`, one
    /// segment, stored under that literal name; it never becomes `a/../b`.
    @Test func namesAreDecodedOnceNeverTwice() async throws {
        try await AbuseServer.with { server, _ in
            let bucket = StorageAbuse.bucket
            let uploaded = try await StorageAbuse.upload(server, query: "name=a%252F..%252Fb", "twice")
            #expect(uploaded.status == 200, "\(uploaded.body)")
            #expect(uploaded.body.contains(#""name":"a%2F..%2Fb""#), "\(uploaded.body)")
            let literal = try await server.send(
                "GET",
                "/v0/b/\(bucket)/o/a%252F..%252Fb?alt=media",
                headers: StorageAbuse.admin
            )
            #expect(literal.status == 200 && literal.body == "twice")
            // Decoded twice it would be a/../b: refused as a name, never this object.
            let once = try await server.send("GET", "/v0/b/\(bucket)/o/a%2F..%2Fb", headers: StorageAbuse.admin)
            StorageAbuse.expectRefused(once, 400, saying: "'..' segment")
            let nul = try await StorageAbuse.upload(server, query: "name=n%2500", "percent")
            #expect(nul.status == 200 && nul.body.contains(#""name":"n%00""#), "\(nul.body)")
            let listing = try await server.send("GET", "/v0/b/\(bucket)/o", headers: StorageAbuse.admin)
            #expect(
                listing.body
                    == #"{"items":[{"bucket":"hearth.appspot.com","name":"a%2F..%2Fb"},{"bucket":"hearth.appspot.com","name":"n%00"}],"prefixes":[]}"#
            )
        }
    }

    /// Backslashes, `...`, look-alike dots and `~` are plain characters of a name in Cloud
    /// Storage: accepted, stored under the literal name in the catalog, the bytes in a file named
    /// by generation only; nothing is written outside `storage/`.
    @Test func backslashesAndDotLookAlikesAreLiteralNames() async throws {
        try await AbuseServer.with { server, _ in
            let names = ["..\\..\\etc\\passwd", ".../x", "a/.../b", "\u{2024}\u{2024}/x", "~/x", "a/ /b"]
            for name in names {
                let reply = try await StorageAbuse.upload(server, query: "name=\(StorageAbuse.encoded(name))", name)
                #expect(reply.status == 200, "\(name): \(reply.body)")
                let read = try await server.send(
                    "GET",
                    "/v0/b/\(StorageAbuse.bucket)/o/\(StorageAbuse.encoded(name))?alt=media",
                    headers: StorageAbuse.admin
                )
                #expect(read.body == name)
            }
            let state = try await StorageAbuse.state(server)
            #expect(state.objects.count == names.count && state.objects.allSatisfy { UInt64($0) != nil })
            #expect(state.temporary.isEmpty && state.uploads.isEmpty)
            let everything = FileManager.default.enumerator(atPath: server.directory.path)?.allObjects as? [String]
            #expect(everything?.contains { $0.hasSuffix("passwd") } == false, "\(everything ?? [])")
        }
    }

    @Test func hostileBucketNamesAreRefused() async throws {
        try await AbuseServer.with { server, _ in
            let before = try await StorageAbuse.state(server)
            let buckets: [(String, String)] = [
                ("Bad%20Bucket", "bucket name"), ("a%2Fb", "bucket name"), ("..", "bucket name"),
                ("%2E%2E", "bucket name"), (".hidden", "bucket name"), ("a%00b", "bucket name"),
                ("UPPER", "bucket name"), (String(repeating: "b", count: 223), "bucket name"), ("", "bucket name"),
            ]
            for (bucket, words) in buckets {
                let upload = try await server.send(
                    "POST",
                    "/v0/b/\(bucket)/o?name=a.txt",
                    headers: StorageAbuse.admin,
                    text: "x"
                )
                StorageAbuse.expectRefused(upload, 400, saying: words, "bucket \(bucket)")
                let list = try await server.send("GET", "/v0/b/\(bucket)/o", headers: StorageAbuse.admin)
                StorageAbuse.expectRefused(list, 400, saying: words, "list bucket \(bucket)")
                let gcs = try await server.send(
                    "POST",
                    "/upload/storage/v1/b/\(bucket)/o?uploadType=media&name=a.txt",
                    headers: StorageAbuse.admin,
                    text: "x"
                )
                StorageAbuse.expectRefused(gcs, 400, saying: words, "GCS bucket \(bucket)")
            }
            #expect(try await StorageAbuse.state(server) == before)
        }
    }

    /// Targets no HTTP client sends: an object name whose slashes are not encoded, raw bytes
    /// (NUL, a bare CR, a backslash) in the target.
    @Test func rawTargetsAreRefusedWithoutReachingTheStore() async throws {
        try await AbuseServer.with { server, _ in
            let before = try await StorageAbuse.state(server)
            let bucket = StorageAbuse.bucket
            let slashes = try await StorageAbuse.raw(server, "GET", Array("/v0/b/\(bucket)/o/users/u1/a.jpg".utf8))
            StorageAbuse.expectRefused(
                status: slashes?.status ?? 0,
                body: slashes?.body ?? "",
                400,
                saying: "percent-encode the slashes",
                "unencoded slashes"
            )
            let upload = try await StorageAbuse.raw(
                server,
                "POST",
                Array("/v0/b/\(bucket)/o/a/../b?name=x".utf8),
                body: Array("x".utf8)
            )
            #expect(upload?.status == 400, "\(String(describing: upload))")
            let backslash = try await StorageAbuse.raw(
                server,
                "POST",
                Array("/v0/b/\(bucket)/o?name=a\\..\\b".utf8),
                headers: "Content-Type: text/plain\r\n",
                body: Array("x".utf8)
            )
            // A raw backslash is no URL character: refused by the HTTP parser, or the literal name.
            #expect(backslash?.status == 400 || backslash?.status == 200, "\(String(describing: backslash))")
            if backslash?.status == 200 {
                #expect(backslash?.body.contains(#""name":"a\\..\\b""#) == true, "\(String(describing: backslash))")
                _ = try await server.send("DELETE", "/v0/b/\(bucket)/o/a%5C..%5Cb", headers: StorageAbuse.admin)
            }
            for target in [
                Array("/v0/b/\(bucket)/o?name=a".utf8) + [0] + Array("b".utf8),
                Array("/v0/b/\(bucket)/o?name=a".utf8) + [0x0D] + Array("b".utf8),
                Array("/v0/b/\(bucket)/o?name=a".utf8) + [0xC0, 0xAE],
            ] {
                let reply = try await StorageAbuse.raw(server, "POST", target, body: Array("x".utf8))
                #expect(reply == nil || reply?.status == 400, "\(target): \(String(describing: reply))")
            }
            #expect(try await StorageAbuse.state(server) == before)
        }
    }
}
