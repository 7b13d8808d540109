import HearthCore
import HearthDatabase
import HearthServer
import Testing

/// A trigger sees who wrote: the admin, a signed-in user (by uid) or an anonymous client, over
/// REST and over WebSocket, as the database API passes the caller on.
@Suite struct TriggerAuthorTests {
    /// Records the author of every write of `/signed/<key>` at `/authors/<key>`.
    struct AuthorRecorder: TreeTrigger {
        var pattern: String { "/signed/$key" }

        func updates(for change: TreeChange) throws -> [DerivedUpdate] {
            guard change.after != nil, let key = change.wildcards["key"] else { return [] }
            let name: String
            switch change.author {
            case .admin: name = "admin"
            case .anonymous: name = "anonymous"
            case .user(let uid): name = "user:\(uid)"
            case .system: name = "system"
            }
            let target = DataPath(keys: [ChildKey("authors"), ChildKey(key)])
            return [.set(target, .leaf(.string(name), priority: nil))]
        }
    }

    static let rules = #"{"rules":{".read":true,"signed":{"$key":{".write":true}}}}"#

    @Test func restAndWebSocketWritesNameTheirAuthor() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in
                var triggers = DatabaseTriggers()
                try triggers.add(AuthorRecorder())
                configuration.triggers = triggers
                try Self.rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
            },
            run: { server in
                try await server.put("/signed/byAdmin", "1")
                let user = try await server.send(
                    "PUT",
                    TestServer.url("/signed/byUser", admin: false),
                    headers: [("Authorization", "Bearer \(TokenMinter.token(uid: "ada"))")],
                    text: "2"
                )
                #expect(user.status == 200)
                let anonymous = try await server.send(
                    "PUT",
                    TestServer.url("/signed/byNobody", admin: false),
                    text: "3"
                )
                #expect(anonymous.status == 200)

                let client = try await RealtimeTestClient.connect(port: server.port)
                let auth = client.request("auth", #"{"cred":"\#(TokenMinter.token(uid: "grace"))"}"#)
                #expect(try await client.response(to: auth).body["s"] as? String == "ok")
                let put = client.request("p", #"{"p":"/signed/bySocket","d":4}"#)
                #expect(try await client.response(to: put).body["s"] as? String == "ok")
                await client.close()

                let authors = try await server.get("/authors")
                #expect(
                    authors
                        == #"{"byAdmin":"admin","byNobody":"anonymous","bySocket":"user:grace","byUser":"user:ada"}"#
                )
            }
        )
    }
}
