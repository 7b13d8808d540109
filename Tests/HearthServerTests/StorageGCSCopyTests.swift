import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Cloud Storage's copies as google-cloud-storage sends them (`copy_blob` → `copyTo`,
/// `rewrite` → `rewriteTo`, `rename_blob` → a copy then a delete): a new object with the
/// source's bytes, checksums and fields (the body's fields applied on top) and its own download
/// token, surviving the source's delete; the admin only.
@Suite struct StorageGCSCopyTests {
    static let bucket = "hearth.appspot.com"
    static let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]

    static func json(_ reply: TestServer.Reply) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any] ?? [:]
    }

    @Test func copyThenRewriteThenDeleteTheSource() async throws {
        try await TestServer.with { server in
            let upload = try await server.send(
                "POST",
                "/upload/storage/v1/b/\(Self.bucket)/o?uploadType=media&name=a%2Fsource.txt",
                headers: Self.admin + [("Content-Type", "text/plain")],
                text: "the bytes"
            )
            let source = try Self.json(upload)
            #expect(upload.status == 200, "\(upload.body)")

            let copied = try await server.send(
                "POST",
                "/storage/v1/b/\(Self.bucket)/o/a%2Fsource.txt/copyTo/b/other.appspot.com/o/b%2Fcopy.txt",
                headers: Self.admin
            )
            #expect(copied.status == 200, "\(copied.body)")
            let copy = try Self.json(copied)
            #expect(copy["bucket"] as? String == "other.appspot.com" && copy["name"] as? String == "b/copy.txt")
            #expect(copy["md5Hash"] as? String == source["md5Hash"] as? String)
            #expect(copy["crc32c"] as? String == source["crc32c"] as? String)
            #expect(copy["contentType"] as? String == "text/plain" && copy["size"] as? String == "9")
            #expect(copy["generation"] as? String != source["generation"] as? String)
            let tokens = { (object: [String: Any]) in
                (object["metadata"] as? [String: String])?["firebaseStorageDownloadTokens"]
            }
            #expect(tokens(copy) != nil && tokens(copy) != tokens(source))

            let rewritten = try await server.send(
                "POST",
                "/storage/v1/b/\(Self.bucket)/o/a%2Fsource.txt/rewriteTo/b/\(Self.bucket)/o/c.txt",
                headers: Self.admin + [("Content-Type", "application/json")],
                text: #"{"contentType": "application/x-note", "metadata": {"k": "v"}}"#
            )
            #expect(rewritten.status == 200, "\(rewritten.body)")
            let rewrite = try Self.json(rewritten)
            #expect(rewrite["kind"] as? String == "storage#rewriteResponse" && rewrite["done"] as? Bool == true)
            #expect(rewrite["totalBytesRewritten"] as? String == "9" && rewrite["objectSize"] as? String == "9")
            let resource = try #require(rewrite["resource"] as? [String: Any])
            #expect(
                resource["name"] as? String == "c.txt" && resource["contentType"] as? String == "application/x-note"
            )
            #expect((resource["metadata"] as? [String: String])?["k"] == "v")

            let deleted = try await server.send(
                "DELETE",
                "/storage/v1/b/\(Self.bucket)/o/a%2Fsource.txt",
                headers: Self.admin
            )
            #expect(deleted.status == 204)
            for (bucket, name) in [("other.appspot.com", "b%2Fcopy.txt"), (Self.bucket, "c.txt")] {
                let read = try await server.send(
                    "GET",
                    "/download/storage/v1/b/\(bucket)/o/\(name)?alt=media",
                    headers: Self.admin
                )
                #expect(read.status == 200 && read.body == "the bytes", "\(bucket)/\(name): \(read.status)")
            }
        }
    }

    @Test func refusals() async throws {
        try await TestServer.with { server in
            let missing = try await server.send(
                "POST",
                "/storage/v1/b/\(Self.bucket)/o/nothing.txt/copyTo/b/\(Self.bucket)/o/x.txt",
                headers: Self.admin
            )
            #expect(missing.status == 404, "\(missing.body)")
            _ = try await server.send(
                "POST",
                "/upload/storage/v1/b/\(Self.bucket)/o?uploadType=media&name=s.txt",
                headers: Self.admin,
                text: "s"
            )
            let anonymous = try await server.send(
                "POST",
                "/storage/v1/b/\(Self.bucket)/o/s.txt/copyTo/b/\(Self.bucket)/o/x.txt"
            )
            #expect(anonymous.status == 401 || anonymous.status == 403, "\(anonymous.status)")
            let badBody = try await server.send(
                "POST",
                "/storage/v1/b/\(Self.bucket)/o/s.txt/copyTo/b/\(Self.bucket)/o/x.txt",
                headers: Self.admin,
                text: "[1]"
            )
            #expect(badBody.status == 400, "\(badBody.body)")
            let badName = try await server.send(
                "POST",
                "/storage/v1/b/\(Self.bucket)/o/s.txt/copyTo/b/\(Self.bucket)/o/",
                headers: Self.admin
            )
            #expect(badName.status == 400, "\(badName.status) \(badName.body)")
            let none = try await server.send("GET", "/storage/v1/b/\(Self.bucket)/o/x.txt", headers: Self.admin)
            #expect(none.status == 404)
        }
    }
}
