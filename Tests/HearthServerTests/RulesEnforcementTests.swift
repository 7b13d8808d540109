import Foundation
import HearthCore
import HearthServer
import HearthTestSupport
import Testing

/// Security rules enforced end to end over REST, SSE and WebSocket, as a user, with
/// revocation by writes and by a rules change.
/// (firebase.google.com/docs/database/security/core-syntax, /docs/reference/rest/database)
struct RulesEnforcementTests {
    static let rules = #"""
        {
          // Test rules: a small chat.
          "rules": {
            "public": { ".read": true },
            "users": {
              "$uid": {
                ".read": "auth != null",
                ".write": "auth.uid === $uid",
                "name": { ".validate": "newData.isString() && newData.val().length <= 10" }
              }
            },
            "rooms": {
              "$room": {
                ".read": "root.child('members').child($room).child(auth.uid).exists()",
                "messages": {
                  "$m": {
                    ".write": "!data.exists() && root.child('members/' + $room + '/' + auth.uid).exists()",
                    ".validate": "newData.child('by').val() === auth.uid"
                  }
                }
              }
            },
            "counters": { "$c": { ".read": "auth != null", ".write": "auth != null", ".validate": "newData.isNumber()" } },
            "owned": {
              ".read": "query.orderByChild === 'owner' && query.equalTo === auth.uid",
              ".indexOn": ["owner"]
            },
            "presence": { "$uid": { ".write": "auth.uid === $uid" } }
          }
        }
        """#

    static func withServer(_ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(prepare: { configuration, _ in
            try rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
        }) { server in
            try await server.put("/members", #"{"r1":{"alice":true,"bob":true}}"#)
            try await server.put("/rooms/r1", #"{"title":"R1"}"#)
            try await server.put("/users/bob", #"{"name":"Bob"}"#)
            try await server.put("/public", #"{"motd":"hi"}"#)
            try await body(server)
        }
    }

    static let denied = "{\n  \"error\" : \"Permission denied\"\n}\n"

    static func auth(_ uid: String) -> [(String, String)] {
        [("Authorization", "Bearer \(TokenMinter.token(uid: uid))")]
    }

    // MARK: REST

    @Test func restReadsFollowTheRules() async throws {
        try await Self.withServer { server in
            let open = try await server.send("GET", "/public.json")
            #expect(open.status == 200)
            #expect(open.body == #"{"motd":"hi"}"#)

            let anonymous = try await server.send("GET", "/users/bob.json")
            #expect(anonymous.status == 401)
            #expect(anonymous.body == Self.denied)

            let signedIn = try await server.send("GET", "/users/bob.json", headers: Self.auth("alice"))
            #expect(signedIn.status == 200)
            #expect(signedIn.body == #"{"name":"Bob"}"#)

            // Rules are not filters: no grant at /users itself.
            #expect(try await server.send("GET", "/users.json", headers: Self.auth("alice")).status == 401)
            // The token in ?auth= works as the header does.
            let query = try await server.send("GET", "/users/bob.json?auth=\(TokenMinter.token(uid: "carol"))")
            #expect(query.status == 200)

            #expect(try await server.send("GET", "/rooms/r1.json", headers: Self.auth("alice")).status == 200)
            #expect(try await server.send("GET", "/rooms/r1.json", headers: Self.auth("carol")).status == 401)
            // Shallow and .priority reads need the same grant.
            #expect(
                try await server.send("GET", "/rooms/r1.json?shallow=true", headers: Self.auth("carol")).status == 401
            )
            #expect(try await server.send("GET", "/rooms/r1/.priority.json", headers: Self.auth("carol")).status == 401)
        }
    }

    @Test func restWritesFollowTheRulesAndDeniedWritesChangeNothing() async throws {
        try await Self.withServer { server in
            let own = try await server.send(
                "PUT",
                "/users/alice.json",
                headers: Self.auth("alice"),
                text: #"{"name":"Al"}"#
            )
            #expect(own.status == 200)
            let other = try await server.send("PUT", "/users/bob/name.json", headers: Self.auth("alice"), text: #""X""#)
            #expect(other.status == 401)
            #expect(other.body == Self.denied)
            let tooLong = try await server.send(
                "PUT",
                "/users/alice/name.json",
                headers: Self.auth("alice"),
                text: #""Alexandrina!""#
            )
            #expect(tooLong.status == 401)
            let anonymous = try await server.send("DELETE", "/users/bob.json")
            #expect(anonymous.status == 401)
            // A multi-path update is one write: one denied path denies all of it.
            let patch = try await server.send(
                "PATCH",
                "/users.json",
                headers: Self.auth("alice"),
                text: #"{"alice/name":"Changed","bob/name":"Hacked"}"#
            )
            #expect(patch.status == 401)
            #expect(try await server.get("/users") == #"{"alice":{"name":"Al"},"bob":{"name":"Bob"}}"#)
        }
    }

    @Test func createOnlyMessagesCheckTheSenderAndMembership() async throws {
        try await Self.withServer { server in
            let post = try await server.send(
                "POST",
                "/rooms/r1/messages.json",
                headers: Self.auth("alice"),
                text: #"{"by":"alice","t":"hi"}"#
            )
            #expect(post.status == 200)
            let name = try #require(
                JSONCompare.canonical(post.body).flatMap { _ in
                    (try JSONSerialization.jsonObject(with: Data(post.body.utf8)) as? [String: Any])?["name"] as? String
                }
            )
            // No edits: the message exists now.
            let edit = try await server.send(
                "PUT",
                "/rooms/r1/messages/\(name).json",
                headers: Self.auth("alice"),
                text: #"{"by":"alice","t":"x"}"#
            )
            #expect(edit.status == 401)
            let spoofed = try await server.send(
                "POST",
                "/rooms/r1/messages.json",
                headers: Self.auth("alice"),
                text: #"{"by":"bob","t":"hi"}"#
            )
            #expect(spoofed.status == 401)
            let outsider = try await server.send(
                "POST",
                "/rooms/r1/messages.json",
                headers: Self.auth("carol"),
                text: #"{"by":"carol","t":"hi"}"#
            )
            #expect(outsider.status == 401)
            let messages = try await server.get("/rooms/r1/messages")
            #expect(messages == #"{"\#(name)":{"by":"alice","t":"hi"}}"#)
        }
    }

    @Test func queryBasedRulesSeeTheQuery() async throws {
        try await Self.withServer { server in
            try await server.put("/owned", #"{"a":{"owner":"alice"},"b":{"owner":"bob"}}"#)
            let mine = try await server.send(
                "GET",
                #"/owned.json?orderBy="owner"&equalTo="alice""#.addingPercentEncoding(
                    withAllowedCharacters: .urlQueryAllowed
                )!,
                headers: Self.auth("alice")
            )
            #expect(mine.status == 200)
            #expect(mine.body == #"{"a":{"owner":"alice"}}"#)
            let theirs = try await server.send(
                "GET",
                #"/owned.json?orderBy="owner"&equalTo="bob""#.addingPercentEncoding(
                    withAllowedCharacters: .urlQueryAllowed
                )!,
                headers: Self.auth("alice")
            )
            #expect(theirs.status == 401)
            #expect(try await server.send("GET", "/owned.json", headers: Self.auth("alice")).status == 401)
        }
    }

    @Test func authVariableOverrideActsAsTheGivenAuth() async throws {
        try await Self.withServer { server in
            let admin = "auth=\(TestServer.adminSecret)"
            let asAlice =
                "auth_variable_override=" + #"{"uid":"alice"}"#.addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics
                )!
            #expect(try await server.send("GET", "/rooms/r1.json?\(admin)&\(asAlice)").status == 200)
            let asCarol =
                "auth_variable_override=" + #"{"uid":"carol"}"#.addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics
                )!
            #expect(try await server.send("GET", "/rooms/r1.json?\(admin)&\(asCarol)").status == 401)
            #expect(try await server.send("GET", "/users/bob.json?\(admin)&auth_variable_override=null").status == 401)
            let write = try await server.send("PUT", "/users/alice/name.json?\(admin)&\(asAlice)", text: #""Al""#)
            #expect(write.status == 200)
        }
    }

    // MARK: SSE

    @Test func sseStreamIsCancelledWhenAWriteRevokesAccess() async throws {
        try await Self.withServer { server in
            let refused = try await SSETestStream.open(
                port: server.port,
                path: "/rooms/r1.json",
                headers: Self.auth("carol")
            )
            #expect(refused.status == 401)

            let stream = try await SSETestStream.open(
                port: server.port,
                path: "/rooms/r1.json",
                headers: Self.auth("alice")
            )
            #expect(stream.status == 200)
            let first = try await stream.nextData()
            #expect(first.name == "put")
            try await server.put("/rooms/r1/title", #""R1!""#)
            #expect(try await stream.nextData().name == "put")
            // Alice leaves the room: the stream loses read access.
            let removal = try await server.send("DELETE", TestServer.url("/members/r1/alice", admin: true))
            #expect(removal.status == 200)
            let cancel = try await stream.nextData()
            #expect(cancel.name == "cancel")
            #expect(cancel.data == #""Permission denied""#)
            try await stream.waitUntilEnded()
        }
    }

    // MARK: WebSocket

    static func connect(_ server: TestServer, as uid: String?) async throws -> RealtimeTestClient {
        let client = try await RealtimeTestClient.connect(port: server.port)
        if let uid {
            let id = client.request("auth", #"{"cred":"\#(TokenMinter.token(uid: uid))"}"#)
            let reply = try await client.response(to: id)
            guard reply.body["s"] as? String == "ok" else { throw TestFailure("auth failed: \(reply.body)") }
        }
        return client
    }

    @Test func webSocketListensWritesAndOnDisconnectAreChecked() async throws {
        try await Self.withServer { server in
            let carol = try await Self.connect(server, as: "carol")
            let listen = try await carol.response(to: carol.request("q", #"{"p":"/rooms/r1","h":""}"#))
            #expect(listen.body["s"] as? String == "permission_denied")
            #expect(listen.pushes.isEmpty)
            let write = try await carol.response(to: carol.request("p", #"{"p":"/users/bob/name","d":"X"}"#))
            #expect(write.body["s"] as? String == "permission_denied")
            let get = try await carol.response(to: carol.request("g", #"{"p":"/rooms/r1","q":{}}"#))
            #expect(get.body["s"] as? String == "permission_denied")
            let onDisconnect = try await carol.response(to: carol.request("o", #"{"p":"/presence/bob","d":true}"#))
            #expect(onDisconnect.body["s"] as? String == "permission_denied")
            let own = try await carol.response(to: carol.request("o", #"{"p":"/presence/carol","d":"gone"}"#))
            #expect(own.body["s"] as? String == "ok")
            let merge = try await carol.response(
                to: carol.request("m", #"{"p":"/users","d":{"carol/name":"C","bob/name":"X"}}"#)
            )
            #expect(merge.body["s"] as? String == "permission_denied")
            let ownWrite = try await carol.response(to: carol.request("p", #"{"p":"/users/carol/name","d":"Carol"}"#))
            #expect(ownWrite.body["s"] as? String == "ok")
            await carol.close()
            // The registered onDisconnect write ran (it was judged when registered).
            let presence = try await eventually {
                try await server.get("/presence")
            } until: {
                $0 != "null"
            }
            #expect(presence == #"{"carol":"gone"}"#)
            #expect(try await server.get("/users") == #"{"bob":{"name":"Bob"},"carol":{"name":"Carol"}}"#)
        }
    }

    @Test func webSocketListenIsRevokedByAWriteAndGetsNothingAfter() async throws {
        try await Self.withServer { server in
            let alice = try await Self.connect(server, as: "alice")
            let listen = try await alice.response(to: alice.request("q", #"{"p":"/rooms/r1","h":""}"#))
            #expect(listen.body["s"] as? String == "ok")
            #expect(listen.pushes.count == 1)
            try await server.put("/members/r1/alice", "null")
            let revoked = try await alice.nextPush()
            #expect(revoked["a"] as? String == "c")
            #expect((revoked["b"] as? [String: Any])?["p"] as? String == "rooms/r1")
            try await server.put("/rooms/r1/title", #""secret""#)
            try await alice.expectNoPushesBeforeFence(at: "/users/alice/fence")
            // Listening again is refused now.
            let again = try await alice.response(to: alice.request("q", #"{"p":"/rooms/r1","h":""}"#))
            #expect(again.body["s"] as? String == "permission_denied")
            await alice.close()
        }
    }

    @Test func aRulesChangeRevokesListensItNoLongerAllows() async throws {
        try await Self.withServer { server in
            let alice = try await Self.connect(server, as: "alice")
            let rooms = try await alice.response(to: alice.request("q", #"{"p":"/rooms/r1","h":""}"#))
            #expect(rooms.body["s"] as? String == "ok")
            let profile = try await alice.response(to: alice.request("q", #"{"p":"/users/bob","h":""}"#))
            #expect(profile.body["s"] as? String == "ok")
            // New rules: profiles stay readable, rooms do not.
            let newRules = #"{"rules": {"users": {"$uid": {".read": "auth != null"}}}}"#
            let put = try await server.send(
                "PUT",
                "/.settings/rules.json?auth=\(TestServer.adminSecret)",
                text: newRules
            )
            #expect(put.status == 200)
            let revoked = try await alice.nextPush()
            #expect(revoked["a"] as? String == "c")
            #expect((revoked["b"] as? [String: Any])?["p"] as? String == "rooms/r1")
            try await server.put("/users/bob/name", #""Bobby""#)
            let update = try await alice.nextPush()
            #expect(update["a"] as? String == "d")
            #expect((update["b"] as? [String: Any])?["p"] as? String == "users/bob/name")
            await alice.close()
        }
    }

    @Test func transactionsFromTwoUsersAreJudgedAndEndAtTheExactSum() async throws {
        try await Self.withServer { server in
            try await server.put("/counters/c", "0")
            let clients = [try await Self.connect(server, as: "alice"), try await Self.connect(server, as: "bob")]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in clients {
                    group.addTask {
                        for _ in 0..<10 {
                            for attempt in 0..<200 {
                                if attempt == 199 { throw TestFailure("the transaction never committed") }
                                let get = try await client.response(
                                    to: client.request("g", #"{"p":"/counters/c","q":{}}"#)
                                )
                                let value = try #require(get.body["d"] as? Int, "get answered \(get.body)")
                                let hash = Self.hashOfInteger(value)
                                let put = try await client.response(
                                    to: client.request("p", #"{"p":"/counters/c","d":\#(value + 1),"h":"\#(hash)"}"#)
                                )
                                if put.body["s"] as? String == "ok" { break }
                                guard put.body["s"] as? String == "datastale" else {
                                    throw TestFailure("transaction answered \(put.body)")
                                }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await server.get("/counters/c") == "20")
            // A transaction that breaks `.validate` is refused, not retried as stale.
            let bad = try await clients[0].response(
                to: clients[0].request("p", #"{"p":"/counters/c","d":"x","h":"\#(Self.hashOfInteger(20))"}"#)
            )
            #expect(bad.body["s"] as? String == "permission_denied")
            for client in clients { await client.close() }
        }
    }

    /// The SDK's hash of an integer leaf (the server computes the same).
    static func hashOfInteger(_ value: Int) -> String {
        ValueHash.hash(.leaf(.number(Double(value)), priority: nil))
    }
}
