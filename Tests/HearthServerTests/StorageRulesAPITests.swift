import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// The storage rules on a real server: every way in (uploads of each kind, metadata, downloads,
/// listings, updates, deletes) judged by `rules/storage.rules`, with `database.get/exists`
/// reading the default database, hot reload, and the admin's endpoints.
@Suite struct StorageRulesAPITests {
    static let bucket = "hearth.appspot.com"
    static let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]
    static let rules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /users/{uid}/{file=**} {
              allow read: if request.auth != null;
              allow create, update: if request.auth.uid == uid
                && request.resource.size < 1000
                && request.resource.contentType.matches('image/.*');
              allow delete: if request.auth.uid == uid;
            }
            match /chats/{chatId}/{file} {
              allow read, create: if database.exists(/chats/$(chatId)/members/$(request.auth.uid));
            }
          }
        }
        """

    static func user(_ uid: String) -> [(String, String)] {
        [("Authorization", "Firebase \(TokenMinter.token(uid: uid))")]
    }

    static func url(_ name: String, query: String = "") -> String {
        let encoded = name.addingPercentEncoding(
            withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-_.~"))
        )!
        return "/v0/b/\(bucket)/o/\(encoded)" + (query.isEmpty ? "" : "?" + query)
    }

    /// A multipart upload as the SDKs' `uploadBytes` sends it.
    static func multipart(
        _ server: TestServer,
        _ name: String,
        bytes: Int,
        type: String = "image/png",
        as headers: [(String, String)]
    ) async throws -> TestServer.Reply {
        let boundary = "hearth-test-boundary"
        var body = Array("--\(boundary)\r\nContent-Type: application/json; charset=utf-8\r\n\r\n".utf8)
        body += Array(
            "{\"name\":\"\(name)\",\"contentType\":\"\(type)\"}\r\n--\(boundary)\r\nContent-Type: \(type)\r\n\r\n".utf8
        )
        body += [UInt8](repeating: 7, count: bytes)
        body += Array("\r\n--\(boundary)--".utf8)
        return try await server.send(
            "POST",
            "/v0/b/\(bucket)/o?name=\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
            headers: headers + [
                ("X-Goog-Upload-Protocol", "multipart"),
                ("Content-Type", "multipart/related; boundary=\(boundary)"),
            ],
            body: body
        )
    }

    static func withRules(_ text: String = rules, run body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(
            prepare: { configuration, directory in
                try text.write(
                    to: directory.appendingPathComponent("rules/storage.rules"),
                    atomically: true,
                    encoding: .utf8
                )
            },
            run: body
        )
    }

    static func exists(_ server: TestServer, _ name: String) async throws -> Bool {
        try await server.send("GET", url(name), headers: admin).status == 200
    }

    @Test func ownAvatarFolderIsWritableByItsOwnerAndReadableBySignedInUsers() async throws {
        try await Self.withRules { server in
            let created = try await Self.multipart(server, "users/alice/avatar.png", bytes: 500, as: Self.user("alice"))
            #expect(created.status == 200, "\(created.body)")
            let other = try await Self.multipart(server, "users/alice/evil.png", bytes: 10, as: Self.user("bob"))
            #expect(other.status == 403 && other.body.contains("\"code\":403"), "\(other.body)")
            #expect(try await !Self.exists(server, "users/alice/evil.png"))
            #expect(
                try await server.send("GET", Self.url("users/alice/avatar.png"), headers: Self.user("bob")).status
                    == 200
            )
            #expect(try await server.send("GET", Self.url("users/alice/avatar.png")).status == 403)
            let media = try await server.send(
                "GET",
                Self.url("users/alice/avatar.png", query: "alt=media"),
                headers: Self.user("bob")
            )
            #expect(media.status == 200 && media.body.utf8.count == 500)
            // Listing the folder is a read.
            let list = try await server.send(
                "GET",
                "/v0/b/\(Self.bucket)/o?prefix=users/alice/&delimiter=/",
                headers: Self.user("bob")
            )
            #expect(list.status == 200 && list.body.contains("avatar.png"), "\(list.body)")
            #expect(try await server.send("GET", "/v0/b/\(Self.bucket)/o?prefix=users/alice/").status == 403)
            // Metadata updates are judged as updates: the owner's pass, another's do not.
            let patch = try await server.send(
                "PATCH",
                Self.url("users/alice/avatar.png"),
                headers: Self.user("bob") + [("Content-Type", "application/json")],
                text: "{\"metadata\":{\"x\":\"1\"}}"
            )
            #expect(patch.status == 403)
            let own = try await server.send(
                "PATCH",
                Self.url("users/alice/avatar.png"),
                headers: Self.user("alice") + [("Content-Type", "application/json")],
                text: "{\"metadata\":{\"x\":\"1\"}}"
            )
            #expect(own.status == 200 && own.body.contains("\"x\":\"1\""), "\(own.body)")
            // Deletes.
            #expect(
                try await server.send("DELETE", Self.url("users/alice/avatar.png"), headers: Self.user("bob")).status
                    == 403
            )
            #expect(
                try await server.send("DELETE", Self.url("users/alice/avatar.png"), headers: Self.user("alice")).status
                    == 204
            )
            #expect(try await !Self.exists(server, "users/alice/avatar.png"))
        }
    }

    @Test func sizeAndTypeAreJudgedOnTheObjectMade() async throws {
        try await Self.withRules { server in
            let large = try await Self.multipart(server, "users/alice/big.png", bytes: 5000, as: Self.user("alice"))
            #expect(large.status == 403)
            #expect(try await !Self.exists(server, "users/alice/big.png"))
            let video = try await Self.multipart(
                server,
                "users/alice/a.mp4",
                bytes: 10,
                type: "video/mp4",
                as: Self.user("alice")
            )
            #expect(video.status == 403)
            // A media upload that announces too many bytes is refused before they come.
            let media = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=users%2Falice%2Fm.png",
                headers: Self.user("alice") + [("Content-Type", "image/png")],
                body: [UInt8](repeating: 1, count: 2000)
            )
            #expect(media.status == 403)
            let small = try await server.send(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=users%2Falice%2Fm.png",
                headers: Self.user("alice") + [("Content-Type", "image/png")],
                body: [UInt8](repeating: 1, count: 20)
            )
            #expect(small.status == 200, "\(small.body)")
            // Nothing refused left bytes behind.
            let objects = try FileManager.default.contentsOfDirectory(
                atPath: server.directory.appendingPathComponent("data/storage/objects").path
            )
            #expect(objects.count == 1, "\(objects)")
        }
    }

    @Test func resumableUploadsAreJudgedAtStartAndAtFinalize() async throws {
        try await Self.withRules { server in
            func start(_ name: String, length: Int, as headers: [(String, String)]) async throws -> TestServer.Reply {
                try await server.send(
                    "POST",
                    "/v0/b/\(Self.bucket)/o?name=\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                    headers: headers + [
                        ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
                        ("X-Goog-Upload-Header-Content-Length", "\(length)"),
                        ("X-Goog-Upload-Header-Content-Type", "image/png"),
                    ],
                    text: "{\"name\":\"\(name)\",\"contentType\":\"image/png\"}"
                )
            }
            #expect(try await start("users/alice/r.png", length: 5000, as: Self.user("alice")).status == 403)
            #expect(try await start("users/alice/r.png", length: 10, as: Self.user("bob")).status == 403)
            let started = try await start("users/alice/r.png", length: 10, as: Self.user("alice"))
            #expect(started.status == 200)
            let sessionURL = try #require(started.headers.first(name: "X-Goog-Upload-URL"))
            let path = String(sessionURL.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
            let finalize = try await server.send(
                "POST",
                path,
                headers: Self.user("alice") + [
                    ("X-Goog-Upload-Command", "upload, finalize"), ("X-Goog-Upload-Offset", "0"),
                ],
                text: "0123456789"
            )
            #expect(finalize.status == 200, "\(finalize.body)")
            #expect(try await Self.exists(server, "users/alice/r.png"))
        }
    }

    @Test func databaseMembershipDecidesChatAttachments() async throws {
        try await Self.withRules { server in
            try await server.put("/chats/c1/members", "{\"alice\": true}")
            let member = try await Self.multipart(server, "chats/c1/photo.png", bytes: 10, as: Self.user("alice"))
            #expect(member.status == 200, "\(member.body)")
            let stranger = try await Self.multipart(server, "chats/c1/x.png", bytes: 10, as: Self.user("bob"))
            #expect(stranger.status == 403)
            #expect(
                try await server.send("GET", Self.url("chats/c1/photo.png"), headers: Self.user("bob")).status == 403
            )
            #expect(
                try await server.send("GET", Self.url("chats/c1/photo.png"), headers: Self.user("alice")).status == 200
            )
            // Membership changes take effect on the next request.
            try await server.put("/chats/c1/members/bob", "true")
            #expect(
                try await server.send("GET", Self.url("chats/c1/photo.png"), headers: Self.user("bob")).status == 200
            )
        }
    }

    @Test func withoutARulesFileOnlyTheAdminAndTokensGetIn() async throws {
        try await TestServer.with { server in
            let denied = try await Self.multipart(server, "users/alice/a.png", bytes: 10, as: Self.user("alice"))
            #expect(denied.status == 403 && denied.body.contains("no storage rules"), "\(denied.body)")
            #expect(try await Self.multipart(server, "users/alice/a.png", bytes: 10, as: Self.admin).status == 200)
            let settings = try await server.send("GET", "/.settings/storage.rules", headers: Self.admin)
            #expect(settings.status == 404)
        }
    }

    @Test func theAdminReplacesChecksAndSimulatesTheRules() async throws {
        try await Self.withRules { server in
            let got = try await server.send("GET", "/.settings/storage.rules", headers: Self.admin)
            #expect(got.status == 200 && got.body == Self.rules)
            let userToken = [("Authorization", "Bearer \(TokenMinter.token(uid: "alice"))")]
            #expect(try await server.send("GET", "/.settings/storage.rules", headers: userToken).status == 403)
            // A document with errors is refused with its line and column; the rules stay.
            let broken = try await server.send(
                "PUT",
                "/.settings/storage.rules",
                headers: Self.admin,
                text:
                    "rules_version = '2';\nservice firebase.storage {\n  match /{a=**} { allow read: if auht != null; }\n}\n"
            )
            #expect(
                broken.status == 400 && broken.body.contains("storage.rules:3:34: unknown variable 'auht'"),
                "\(broken.body)"
            )
            #expect(try await server.send("GET", "/.settings/storage.rules", headers: Self.admin).body == Self.rules)
            let check = try await server.send(
                "POST",
                "/.settings/storage.rules:check",
                headers: Self.admin,
                text: "service firebase.storage {"
            )
            #expect(
                check.status == 200 && check.body.contains("\"ok\":false") && check.body.contains("\"line\":1"),
                "\(check.body)"
            )
            let simulated = try await server.send(
                "POST",
                "/.settings/storage.rules:simulate",
                headers: Self.admin,
                text: "{\"method\": \"get\", \"path\": \"users/alice/a.png\", \"auth\": {\"uid\": \"bob\"}}"
            )
            #expect(simulated.status == 200 && simulated.body.contains("\"allowed\":true"), "\(simulated.body)")
            #expect(simulated.body.contains("\"match\":\"/b/{bucket}/o/users/{uid}/{file=**}\""))
            // A valid document is in force when the PUT answers, and written to the file.
            let open =
                "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o/{all=**} { allow read, write; }\n}\n"
            #expect(
                try await server.send("PUT", "/.settings/storage.rules", headers: Self.admin, text: open).status == 200
            )
            #expect(
                try await Self.multipart(server, "anything/x.bin", bytes: 10, type: "application/zip", as: []).status
                    == 200
            )
            let file = try String(
                contentsOf: server.directory.appendingPathComponent("rules/storage.rules"),
                encoding: .utf8
            )
            #expect(file == open)
        }
    }

    @Test func editingTheFileReloadsTheRules() async throws {
        try await Self.withRules { server in
            #expect(try await Self.multipart(server, "open/x.png", bytes: 10, as: []).status == 403)
            let open =
                "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o/open/{f} { allow write; }\n}\n"
            try open.write(
                to: server.directory.appendingPathComponent("rules/storage.rules"),
                atomically: true,
                encoding: .utf8
            )
            try await eventually(timeout: .seconds(10)) {
                try await Self.multipart(server, "open/x.png", bytes: 10, as: []).status == 200
            }
            // A broken edit is refused; the rules in force stay.
            try "service firebase.storage {".write(
                to: server.directory.appendingPathComponent("rules/storage.rules"),
                atomically: true,
                encoding: .utf8
            )
            try await Task.sleep(for: .milliseconds(600))
            #expect(try await Self.multipart(server, "open/y.png", bytes: 10, as: []).status == 200)
        }
    }
}
