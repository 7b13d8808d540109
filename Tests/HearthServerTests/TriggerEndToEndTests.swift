import Foundation
import HearthCore
import HearthDatabase
import HearthServer
import HearthTriggerFixtures
import Testing

/// The tests' `ListChildCounter` trigger in a real server: every way in keeps
/// `/lists/<list>/count` equal to the number of the list's items, in the same commit.
@Suite struct TriggerEndToEndTests {
    /// Refuses any write under `/refused`.
    struct Refuser: TreeTrigger {
        var pattern: String { "/refused/$key" }
        func updates(for change: TreeChange) throws -> [DerivedUpdate] {
            throw WriteRefusal("refused by the test trigger")
        }
    }

    /// Fails on any write under `/broken`, with an error that is not a refusal.
    struct Breaker: TreeTrigger {
        struct Failure: Error, CustomStringConvertible {
            var description: String { "a secret internal detail" }
        }

        var pattern: String { "/broken/$key" }
        func updates(for change: TreeChange) throws -> [DerivedUpdate] { throw Failure() }
    }

    static func withCountingServer(rules: String? = nil, run body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(
            prepare: { configuration, _ in
                var triggers = try DatabaseTriggers.endToEnd()
                try triggers.add(Refuser())
                try triggers.add(Breaker())
                configuration.triggers = triggers
                if let rules { try rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8) }
            },
            run: body
        )
    }

    @Test func restWritesKeepTheCountExact() async throws {
        try await Self.withCountingServer { server in
            try await server.put("/lists/a/items/i1", #"{"t":"one"}"#)
            let patch = try await server.send(
                "PATCH",
                TestServer.url("/lists", admin: true),
                text: #"{"a/items/i2":"two","b/items/j1":true}"#
            )
            #expect(patch.status == 200)
            let post = try await server.send("POST", TestServer.url("/lists/a/items", admin: true), text: #""three""#)
            #expect(post.status == 200)
            #expect(try await server.get("/lists/a/count") == "3")
            let delete = try await server.send("DELETE", TestServer.url("/lists/a/items/i1", admin: true))
            #expect(delete.status == 200)
            #expect(try await server.get("/lists/a/count") == "2")
            #expect(try await server.get("/lists/b/count") == "1")
            // A conditional write (a transaction over REST) runs the trigger too.
            let etag = try await server.send(
                "GET",
                TestServer.url("/lists/b/items/j2", admin: true),
                headers: [("X-Firebase-ETag", "true")]
            )
            let tag = try #require(etag.headers.first(name: "ETag"))
            let conditional = try await server.send(
                "PUT",
                TestServer.url("/lists/b/items/j2", admin: true),
                headers: [("if-match", tag)],
                text: "true"
            )
            #expect(conditional.status == 200)
            #expect(try await server.get("/lists/b/count") == "2")
        }
    }

    @Test func aListenerGetsTheItemAndItsCountInOnePush() async throws {
        try await Self.withCountingServer { server in
            try await server.put("/lists/a/items/i1", "1")
            let listener = try await RealtimeTestClient.connect(port: server.port)
            try await listener.authenticateAsAdmin()
            _ = try await listener.response(to: listener.request("q", #"{"p":"/lists/a","h":""}"#))
            try await server.put("/lists/a/items/i2", "2")
            let push = try await listener.nextPush()
            let body = try #require(push["b"] as? [String: Any])
            let data = canonicalJSON(body["d"])
            // Both changes of the one commit arrive together, whatever shape the push takes.
            #expect(data.contains(#""count":2"#), "push: \(data)")
            #expect(data.contains("i2"), "push: \(data)")
            await listener.close()
        }
    }

    @Test func anOnDisconnectWriteRunsTheTriggerWhenTheConnectionGoes() async throws {
        try await Self.withCountingServer { server in
            let listener = try await RealtimeTestClient.connect(port: server.port)
            try await listener.authenticateAsAdmin()
            _ = try await listener.response(to: listener.request("q", #"{"p":"/lists/od","h":""}"#))
            let leaving = try await RealtimeTestClient.connect(port: server.port)
            try await leaving.authenticateAsAdmin()
            let register = leaving.request("o", #"{"p":"/lists/od/items/gone","d":true}"#)
            #expect(try await leaving.response(to: register).body["s"] as? String == "ok")
            await leaving.close()
            // The item and its count arrive in one push once the connection is gone.
            let push = try await listener.nextPush()
            let data = canonicalJSON((push["b"] as? [String: Any])?["d"])
            #expect(data.contains(#""count":1"#), "push: \(data)")
            #expect(data.contains("gone"), "push: \(data)")
            #expect(try await server.get("/lists/od/count") == "1")
            await listener.close()
        }
    }

    @Test func webSocketWritesKeepTheCountExact() async throws {
        try await Self.withCountingServer { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            var last = 0
            for n in 0..<10 { last = client.request("p", #"{"p":"/lists/ws/items/i\#(n)","d":\#(n)}"#) }
            _ = try await client.response(to: last)
            let merge = client.request("m", #"{"p":"/lists/ws/items","d":{"i0":null,"x":1,"y":2}}"#)
            #expect(try await client.response(to: merge).body["s"] as? String == "ok")
            #expect(try await server.get("/lists/ws/count") == "11")
            #expect(try await server.get("/lists/ws/items", query: "&shallow=true").split(separator: ",").count == 11)
            await client.close()
        }
    }

    @Test func theRulesJudgeOnlyTheClientsPartAndARefusalWritesNothing() async throws {
        let rules =
            #"{"rules":{".read":true,"lists":{"$list":{"items":{".write":true}}},"refused":{".write":true},"broken":{".write":true}}}"#
        try await Self.withCountingServer(rules: rules) { server in
            // Anonymous: may write items, not the count; the derived count is written anyway.
            let put = try await server.send("PUT", "/lists/a/items/i1.json", text: "true")
            #expect(put.status == 200)
            #expect(try await server.get("/lists/a/count") == "1")
            let direct = try await server.send("PUT", "/lists/a/count.json", text: "7")
            #expect(direct.status == 401)
            // A trigger that throws refuses the whole write, over REST and WebSocket.
            let refused = try await server.send("PATCH", "/.json", text: #"{"refused/x":1,"lists/a/items/i2":true}"#)
            #expect(refused.status == 400)
            #expect(refused.body.contains("refused by the test trigger"))
            let client = try await RealtimeTestClient.connect(port: server.port)
            let reply = try await client.response(to: client.request("p", #"{"p":"/refused/y","d":1}"#))
            #expect(reply.body["s"] as? String != "ok")
            #expect(try await server.get("/refused") == "null")
            // A trigger that fails of its own: refused as the server's failure, its error
            // never shown to the client.
            let broken = try await server.send("PUT", "/broken/x.json", text: "1")
            #expect(broken.status == 500)
            #expect(!broken.body.contains("secret internal detail"))
            let brokenReply = try await client.response(to: client.request("p", #"{"p":"/broken/y","d":1}"#))
            #expect(brokenReply.body["s"] as? String == "failure")
            #expect(!"\(brokenReply.body)".contains("secret internal detail"))
            #expect(try await server.get("/broken") == "null")
            #expect(try await server.get("/lists/a") == #"{"count":1,"items":{"i1":true}}"#)
            await client.close()
        }
    }
}
