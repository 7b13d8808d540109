import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Cloud Storage's JSON API as firebase-admin and google-cloud-storage send it: uploads (media,
/// multipart), object resources with their links and download tokens, downloads, listings,
/// patches and deletes, for the admin only.
@Suite struct StorageGCSAPITests {
    static let bucket = "hearth.appspot.com"
    static let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]

    static func json(_ reply: TestServer.Reply) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any] ?? [:]
    }

    @Test func uploadReadListPatchDelete() async throws {
        try await TestServer.with { server in
            let media = try await server.send(
                "POST",
                "/upload/storage/v1/b/\(Self.bucket)/o?uploadType=media&name=admin%2Freport.txt",
                headers: Self.admin + [("Content-Type", "text/plain")],
                text: "report"
            )
            #expect(media.status == 200, "\(media.body)")
            let object = try Self.json(media)
            #expect(object["kind"] as? String == "storage#object")
            let generation = try #require(object["generation"] as? String)
            #expect(object["id"] as? String == "\(Self.bucket)/admin/report.txt/\(generation)")
            #expect(
                object["selfLink"] as? String
                    == "http://127.0.0.1:\(server.port)/storage/v1/b/\(Self.bucket)/o/admin%2Freport.txt"
            )
            #expect(
                (object["mediaLink"] as? String)?.contains(
                    "/download/storage/v1/b/\(Self.bucket)/o/admin%2Freport.txt?generation="
                ) == true
            )
            #expect((object["metadata"] as? [String: String])?["firebaseStorageDownloadTokens"]?.count == 36)
            #expect(object["size"] as? String == "6" && object["crc32c"] is String)

            let body =
                Array(
                    "--gcs\r\nContent-Type: application/json\r\n\r\n{\"name\":\"admin/m.bin\",\"contentType\":\"application/x-test\"}\r\n"
                        .utf8
                )
                + Array("--gcs\r\nContent-Type: application/octet-stream\r\n\r\nmulti\r\n--gcs--".utf8)
            let multipart = try await server.send(
                "POST",
                "/upload/storage/v1/b/\(Self.bucket)/o?uploadType=multipart",
                headers: Self.admin + [("Content-Type", "multipart/related; boundary=gcs")],
                body: body
            )
            let uploaded = try Self.json(multipart)
            #expect(multipart.status == 200 && uploaded["contentType"] as? String == "application/x-test")

            let download = try await server.send(
                "GET",
                "/download/storage/v1/b/\(Self.bucket)/o/admin%2Fm.bin?alt=media",
                headers: Self.admin
            )
            #expect(download.status == 200 && download.body == "multi")
            let alt = try await server.send(
                "GET",
                "/storage/v1/b/\(Self.bucket)/o/admin%2Freport.txt?alt=media",
                headers: Self.admin
            )
            #expect(alt.body == "report")

            let list = try Self.json(
                try await server.send("GET", "/storage/v1/b/\(Self.bucket)/o?prefix=admin%2F", headers: Self.admin)
            )
            #expect(list["kind"] as? String == "storage#objects")
            #expect(
                (list["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == [
                    "admin/m.bin", "admin/report.txt",
                ]
            )

            let patched = try await server.send(
                "PATCH",
                "/storage/v1/b/\(Self.bucket)/o/admin%2Freport.txt",
                headers: Self.admin + [("Content-Type", "application/json")],
                text: #"{"metadata":{"reviewed":"yes"}}"#
            )
            let patchedObject = try Self.json(patched)
            #expect(patchedObject["metageneration"] as? String == "2")

            let deleted = try await server.send(
                "DELETE",
                "/storage/v1/b/\(Self.bucket)/o/admin%2Freport.txt",
                headers: Self.admin
            )
            #expect(deleted.status == 204)
            let gone = try await server.send(
                "GET",
                "/storage/v1/b/\(Self.bucket)/o/admin%2Freport.txt",
                headers: Self.admin
            )
            #expect(gone.status == 404)
        }
    }

    @Test func onlyTheAdmin() async throws {
        try await TestServer.with { server in
            let user = [("Authorization", "Bearer \(TokenMinter.token(uid: "ada"))")]
            let refused = try await server.send("GET", "/storage/v1/b/\(Self.bucket)/o", headers: user)
            #expect(refused.status == 403)
            let anonymous = try await server.send("POST", "/upload/storage/v1/b/\(Self.bucket)/o?name=x", text: "x")
            #expect(anonymous.status == 403)
        }
    }

    /// google-cloud-storage's resumable uploads: the session in `Location`, chunks with
    /// `Content-Range`, 308 until the last byte, then the object.
    @Test func resumableUploadsWithContentRange() async throws {
        try await TestServer.with { server in
            let start = try await server.send(
                "POST",
                "/upload/storage/v1/b/\(Self.bucket)/o?uploadType=resumable",
                headers: Self.admin + [("X-Upload-Content-Type", "text/plain"), ("Content-Type", "application/json")],
                text: #"{"name":"gcs/r.txt"}"#
            )
            #expect(start.status == 200)
            let location = try #require(start.headers.first(name: "Location"))
            let session = String(location.dropFirst("http://127.0.0.1:\(server.port)".count))
            // A chunk of the upload: `text` as the bytes `range` (`Content-Range`) of the object.
            let putChunk = { (range: String, text: String) in
                try await server.send("PUT", session, headers: Self.admin + [("Content-Range", range)], text: text)
            }
            let first = try await putChunk("bytes 0-4/10", "01234")
            #expect(first.status == 308 && first.headers.first(name: "Range") == "bytes=0-4")
            let status = try await putChunk("bytes */10", "")
            #expect(status.status == 308 && status.headers.first(name: "Range") == "bytes=0-4")
            let wrong = try await putChunk("bytes 2-6/10", "23456")
            #expect(wrong.status == 400)
            let last = try await putChunk("bytes 5-9/10", "56789")
            #expect(last.status == 200)
            let object = try Self.json(last)
            #expect(object["name"] as? String == "gcs/r.txt" && object["size"] as? String == "10")
            #expect(object["contentType"] as? String == "text/plain")
            let media = try await server.send(
                "GET",
                "/download/storage/v1/b/\(Self.bucket)/o/gcs%2Fr.txt?alt=media",
                headers: Self.admin
            )
            #expect(media.body == "0123456789")
        }
    }
    /// An object whose download tokens were cleared through the GCS API gets a new one at its
    /// next metadata GET on the client API, as Firebase does, so `getDownloadURL` works; the
    /// next GET keeps it.
    @Test func aMetadataGetGivesATokenlessObjectOneToken() async throws {
        try await TestServer.with { server in
            let path = "/storage/v1/b/\(Self.bucket)/o/admin%2Fthumb.txt"
            let upload = try await server.send(
                "POST",
                "/upload/storage/v1/b/\(Self.bucket)/o?uploadType=media&name=admin%2Fthumb.txt",
                headers: Self.admin + [("Content-Type", "text/plain")],
                text: "thumb"
            )
            #expect(upload.status == 200)
            let cleared = try await server.send(
                "PATCH",
                path,
                headers: Self.admin + [("Content-Type", "application/json")],
                text: #"{"metadata":{"firebaseStorageDownloadTokens":null}}"#
            )
            #expect(cleared.status == 200)
            #expect((try Self.json(cleared)["metadata"] as? [String: String])?["firebaseStorageDownloadTokens"] == nil)

            let v0 = "/v0/b/\(Self.bucket)/o/admin%2Fthumb.txt"
            let first = try Self.json(try await server.send("GET", v0, headers: Self.admin))
            let token = try #require(first["downloadTokens"] as? String)
            #expect(token.count == 36)
            #expect(first["metageneration"] as? String == "3")
            let again = try Self.json(try await server.send("GET", v0, headers: Self.admin))
            #expect(again["downloadTokens"] as? String == token)
            #expect(again["metageneration"] as? String == "3")
            // The token opens the bytes without a credential.
            let media = try await server.send("GET", v0 + "?alt=media&token=\(token)")
            #expect(media.status == 200 && media.body == "thumb")
            let gcs = try Self.json(try await server.send("GET", path, headers: Self.admin))
            #expect((gcs["metadata"] as? [String: String])?["firebaseStorageDownloadTokens"] == token)
        }
    }
}
