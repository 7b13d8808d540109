import Foundation
import HearthTestSupport
import Testing

/// The JSON API's short path forms (`/b/{bucket}/o…`, as the emulator serves them) beside the
/// database's `.json` paths, and objects' ACLs: kept and given back (`…/acl`, an object's `acl`
/// in the `full` projection, `predefinedAcl` on uploads, patches and copies), checked, for the
/// admin only, and granting nothing.
@Suite struct StorageGCSACLTests {
    static let bucket = TestServer.bucket
    static let admin = TestServer.adminBearer
    static let json = [("Content-Type", "application/json")]

    static func object(_ reply: TestServer.Reply) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any] ?? [:]
    }

    /// The `(entity, role)` pairs of an ACL as the JSON API gives it.
    static func entries(_ acl: Any?) -> [String] {
        ((acl as? [[String: Any]]) ?? []).map { "\($0["entity"] as? String ?? "?"):\($0["role"] as? String ?? "?")" }
    }

    static func upload(_ server: TestServer, _ name: String, query: String = "") async throws -> [String: Any] {
        let reply = try await server.send(
            "POST",
            "/upload/storage/v1/b/\(bucket)/o?uploadType=media&name=\(name)\(query)",
            headers: admin + [("Content-Type", "text/plain")],
            text: "acl test"
        )
        #expect(reply.status == 200, "\(reply.body)")
        return try object(reply)
    }

    @Test func shortPathFormsBesideTheDatabase() async throws {
        try await TestServer.with { server in
            _ = try await Self.upload(server, "docs%2Fa.txt")
            let metadata = try await server.send("GET", "/b/\(Self.bucket)/o/docs%2Fa.txt", headers: Self.admin)
            try #expect(metadata.status == 200 && (try Self.object(metadata))["kind"] as? String == "storage#object")
            let media = try await server.send("GET", "/b/\(Self.bucket)/o/docs%2Fa.txt?alt=media", headers: Self.admin)
            #expect(media.status == 200 && media.body == "acl test")
            let download = try await server.send(
                "GET",
                "/download/storage/v1/b/\(Self.bucket)/o/docs%2Fa.txt?alt=media",
                headers: Self.admin
            )
            #expect(download.body == "acl test")
            let list = try Self.object(
                try await server.send("GET", "/b/\(Self.bucket)/o?prefix=docs%2F", headers: Self.admin)
            )
            #expect((list["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["docs/a.txt"])
            let patched = try await server.send(
                "PATCH",
                "/b/\(Self.bucket)/o/docs%2Fa.txt",
                headers: Self.admin + Self.json,
                text: #"{"contentLanguage":"en"}"#
            )
            try #expect(patched.status == 200 && (try Self.object(patched))["contentLanguage"] as? String == "en")
            let buckets = try Self.object(try await server.send("GET", "/b", headers: Self.admin))
            #expect(buckets["kind"] as? String == "storage#buckets")
            let bucket = try Self.object(try await server.send("GET", "/b/\(Self.bucket)", headers: Self.admin))
            #expect(bucket["name"] as? String == Self.bucket)
            let refused = try await server.send("GET", "/b/\(Self.bucket)/o")
            #expect(refused.status == 403)

            // A database path under /b ends in .json and stays the database's.
            try await server.put("/b/site/o/note", #"{"text":"db"}"#)
            let value = try await server.send("GET", "/b/site/o/note.json", headers: Self.admin)
            #expect(value.status == 200 && value.body == #"{"text":"db"}"#)
            #expect(try await server.get("/b", query: "&shallow=true") == #"{"site":true}"#)
        }
    }

    @Test func aclsAreKeptAndGivenBack() async throws {
        try await TestServer.with { server in
            _ = try await Self.upload(server, "shared.txt")
            let path = "/storage/v1/b/\(Self.bucket)/o/shared.txt"
            let fresh = try Self.object(try await server.send("GET", path + "/acl", headers: Self.admin))
            #expect(fresh["kind"] as? String == "storage#objectAccessControls")
            #expect(Self.entries(fresh["items"]) == [])

            // google-cloud-storage's make_public: reload the list, then PATCH it with projection=full.
            let made = try await server.send(
                "PATCH",
                path + "?projection=full",
                headers: Self.admin + Self.json,
                text: #"{"acl":[{"entity":"allUsers","role":"READER"}]}"#
            )
            #expect(made.status == 200)
            let madeObject = try Self.object(made)
            #expect(Self.entries(madeObject["acl"]) == ["allUsers:READER"])
            #expect(madeObject["metageneration"] as? String == "2")
            let listed = try Self.object(try await server.send("GET", path + "/acl", headers: Self.admin))
            #expect(Self.entries(listed["items"]) == ["allUsers:READER"])
            let item = try #require((listed["items"] as? [[String: Any]])?.first)
            #expect(
                item["kind"] as? String == "storage#objectAccessControl" && item["object"] as? String == "shared.txt"
            )
            // The default projection leaves the ACL out; `full` has it.
            try #expect(try Self.object(try await server.send("GET", path, headers: Self.admin))["acl"] == nil)
            let full = try Self.object(try await server.send("GET", path + "?projection=full", headers: Self.admin))
            #expect(Self.entries(full["acl"]) == ["allUsers:READER"])

            // One entry at a time (Node's file.acl.add / get / update / delete).
            let added = try await server.send(
                "POST",
                path + "/acl",
                headers: Self.admin + Self.json,
                text: #"{"entity":"user-ada@example.com","role":"OWNER"}"#
            )
            try #expect(added.status == 200 && (try Self.object(added))["role"] as? String == "OWNER")
            let entryPath = path + "/acl/user-ada%40example.com"
            let entry = try Self.object(try await server.send("GET", entryPath, headers: Self.admin))
            #expect(entry["entity"] as? String == "user-ada@example.com")
            let changed = try await server.send(
                "PUT",
                entryPath,
                headers: Self.admin + Self.json,
                text: #"{"role":"READER"}"#
            )
            try #expect((try Self.object(changed))["role"] as? String == "READER")
            let both = try Self.object(try await server.send("GET", path + "/acl", headers: Self.admin))
            #expect(Self.entries(both["items"]) == ["allUsers:READER", "user-ada@example.com:READER"])
            #expect(try await server.send("DELETE", entryPath, headers: Self.admin).status == 204)
            #expect(try await server.send("DELETE", entryPath, headers: Self.admin).status == 404)
            #expect(try await server.send("GET", entryPath, headers: Self.admin).status == 404)

            // predefinedAcl wins over the body's (empty) list, as google-cloud-storage sends it.
            let privateAgain = try await server.send(
                "PATCH",
                path + "?predefinedAcl=private&projection=full",
                headers: Self.admin + Self.json,
                text: #"{"acl":[]}"#
            )
            try #expect(privateAgain.status == 200 && Self.entries((try Self.object(privateAgain))["acl"]) == [])
            let authenticated = try await server.send(
                "PATCH",
                path + "?predefinedAcl=authenticatedRead",
                headers: Self.admin + Self.json,
                text: "{}"
            )
            try #expect(Self.entries((try Self.object(authenticated))["acl"]) == ["allAuthenticatedUsers:READER"])

            // The client API neither shows nor changes it.
            let v0 = try await server.send(
                "PATCH",
                "/v0/b/\(Self.bucket)/o/shared.txt",
                headers: Self.admin + Self.json,
                text: #"{"acl":[{"entity":"allUsers","role":"READER"}],"contentLanguage":"fr"}"#
            )
            try #expect(v0.status == 200 && (try Self.object(v0))["acl"] == nil)
            let after = try Self.object(try await server.send("GET", path + "/acl", headers: Self.admin))
            #expect(Self.entries(after["items"]) == ["allAuthenticatedUsers:READER"])
        }
    }

    @Test func uploadsAndCopiesSetTheirOwn() async throws {
        try await TestServer.with { server in
            let uploaded = try await Self.upload(
                server,
                "public.txt",
                query: "&predefinedAcl=publicRead&projection=full"
            )
            #expect(Self.entries(uploaded["acl"]) == ["allUsers:READER"])
            let metadata =
                #"{"name":"listed.txt","acl":[{"entity":"group-team@example.com","role":"READER"}]}"#
            let body =
                Array("--m\r\nContent-Type: application/json\r\n\r\n\(metadata)\r\n".utf8)
                + Array("--m\r\nContent-Type: text/plain\r\n\r\nlisted\r\n--m--".utf8)
            let multipart = try await server.send(
                "POST",
                "/upload/storage/v1/b/\(Self.bucket)/o?uploadType=multipart",
                headers: Self.admin + [("Content-Type", "multipart/related; boundary=m")],
                body: body
            )
            #expect(multipart.status == 200)
            let listedACL = try await server.send(
                "GET",
                "/storage/v1/b/\(Self.bucket)/o/listed.txt/acl",
                headers: Self.admin
            )
            try #expect(Self.entries((try Self.object(listedACL))["items"]) == ["group-team@example.com:READER"])

            // A copy starts with no ACL of its own, unless the request names one.
            let copy = try await server.send(
                "POST",
                "/storage/v1/b/\(Self.bucket)/o/public.txt/copyTo/b/\(Self.bucket)/o/copy.txt?projection=full",
                headers: Self.admin
            )
            try #expect(copy.status == 200 && Self.entries((try Self.object(copy))["acl"]) == [])
            let publicCopy = try await server.send(
                "POST",
                "/storage/v1/b/\(Self.bucket)/o/listed.txt/copyTo/b/\(Self.bucket)/o/copy2.txt"
                    + "?destinationPredefinedAcl=publicRead&projection=full",
                headers: Self.admin
            )
            try #expect(Self.entries((try Self.object(publicCopy))["acl"]) == ["allUsers:READER"])

            // A resumable upload keeps its predefinedAcl across its session.
            let start = try await server.send(
                "POST",
                "/upload/storage/v1/b/\(Self.bucket)/o?uploadType=resumable&predefinedAcl=publicRead",
                headers: Self.admin + Self.json,
                text: #"{"name":"resumed.txt"}"#
            )
            let location = try #require(start.headers.first(name: "Location"))
            let finished = try await server.send(
                "PUT",
                String(location.dropFirst("http://127.0.0.1:\(server.port)".count)),
                headers: Self.admin,
                text: "resumed"
            )
            #expect(finished.status == 200)
            let resumedACL = try await server.send(
                "GET",
                "/storage/v1/b/\(Self.bucket)/o/resumed.txt/acl",
                headers: Self.admin
            )
            try #expect(Self.entries((try Self.object(resumedACL))["items"]) == ["allUsers:READER"])

            // allUsers:READER grants nothing: the JSON API stays the admin's, the client API the rules'.
            let anonymous = try await server.send("GET", "/storage/v1/b/\(Self.bucket)/o/public.txt?alt=media")
            #expect(anonymous.status == 403)
            let client = try await server.send("GET", "/v0/b/\(Self.bucket)/o/public.txt?alt=media")
            #expect(client.status == 403)
            let user = [("Authorization", "Bearer \(TokenMinter.token(uid: "ada"))")]
            let userACL = try await server.send("GET", "/storage/v1/b/\(Self.bucket)/o/public.txt/acl", headers: user)
            #expect(userACL.status == 403)
        }
    }

    @Test func badACLsAreRefused() async throws {
        try await TestServer.with { server in
            _ = try await Self.upload(server, "checked.txt")
            let path = "/storage/v1/b/\(Self.bucket)/o/checked.txt"
            let refusals: [(String, String, String)] = [
                ("PATCH", path, #"{"acl":[{"entity":"allUsers","role":"WRITER"}]}"#),
                ("PATCH", path, #"{"acl":[{"entity":"nobody","role":"READER"}]}"#),
                ("PATCH", path, #"{"acl":{"entity":"allUsers"}}"#),
                ("PATCH", path + "?predefinedAcl=everyone", "{}"),
                ("POST", path + "/acl", #"{"entity":"allUsers"}"#),
                ("POST", path + "/acl", "not json"),
                ("POST", "/upload/storage/v1/b/\(Self.bucket)/o?uploadType=media&name=x&predefinedAcl=no", "x"),
            ]
            for (method, target, body) in refusals {
                let reply = try await server.send(method, target, headers: Self.admin + Self.json, text: body)
                #expect(reply.status == 400, "\(method) \(target) \(body): \(reply.status) \(reply.body)")
            }
            let tooMany = (0...ObjectACLLimit.entries).map { #"{"entity":"user-u\#($0)@example.com","role":"READER"}"# }
            let crowded = try await server.send(
                "PATCH",
                path,
                headers: Self.admin + Self.json,
                text: #"{"acl":[\#(tooMany.joined(separator: ","))]}"#
            )
            #expect(crowded.status == 400)
            let missing = try await server.send(
                "GET",
                "/storage/v1/b/\(Self.bucket)/o/none.txt/acl",
                headers: Self.admin
            )
            #expect(missing.status == 404)
            let acl = try Self.object(try await server.send("GET", path + "/acl", headers: Self.admin))
            #expect(Self.entries(acl["items"]) == [])
            #expect(try await server.objectExists("x") == false)
        }
    }
}

/// Cloud Storage's limit on an object's ACL entries.
enum ObjectACLLimit {
    static let entries = 100
}
