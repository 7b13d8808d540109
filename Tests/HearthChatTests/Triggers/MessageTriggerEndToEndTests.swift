import Foundation
import HearthChat
import HearthServer
import HearthTestSupport
import Testing

/// The message trigger in the real server: messages by REST and WebSocket commit their
/// derived state before they are acknowledged, and listeners see it.
@Suite(.timeLimit(.minutes(3))) struct MessageTriggerEndToEndTests {
    static func withChatServer(run body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(
            prepare: { configuration, _ in
                try ChatApp.register(in: &configuration.triggers, namespaces: ["default"])
            },
            run: { server in
                try await server.put("/", ChatStore.seed)
                try await body(server)
            }
        )
    }

    static let message = #"{"sender":"carol","kind":"text","text":"hi","sentAt":{".sv":"timestamp"}}"#

    @Test func deletingTheNewestMessageRaisesLastMessageAtToTheNextNewest() async throws {
        try await Self.withChatServer { server in
            // "m0001" sorts after every push id: while it is the newest, later messages sort
            // before it and leave the members' lastMessageAt where it set it.
            try await server.put("/messages/g1/m0001", #"{"sender":"carol","kind":"text","text":"hi","sentAt":1000}"#)
            try await Task.sleep(for: .milliseconds(5))
            let post = try await server.send("POST", TestServer.url("/messages/g1", admin: true), text: Self.message)
            let name = try #require(
                (try JSONSerialization.jsonObject(with: Data(post.body.utf8)) as? [String: Any])?["name"] as? String
            )
            #expect(try await server.get("/userChats/bob/g1/lastMessageAt") == "1000")
            #expect(try await server.send("DELETE", TestServer.url("/messages/g1/m0001", admin: true)).status == 200)
            let sentAt = try await server.get("/messages/g1/\(name)/sentAt")
            #expect(try await server.get("/chats/g1/lastMessage/id") == #""\#(name)""#)
            for member in ["alice", "bob", "carol"] {
                #expect(try await server.get("/userChats/\(member)/g1/lastMessageAt") == sentAt)
            }
        }
    }

    @Test func restMessagesCommitTheirCountersBeforeTheyAreAcknowledged() async throws {
        try await Self.withChatServer { server in
            // "!m1" sorts before every push id ("-…"), as an older message would.
            try await server.put("/messages/g1/!m1", Self.message)
            // Read right after the acknowledgement: no waiting.
            #expect(try await server.get("/userChats/bob/g1/unread") == "1")
            #expect(try await server.get("/unreadTotals/alice") == "1")
            #expect(try await server.get("/userChats/carol/g1/unread") == "0")
            let sentAt = try await server.get("/messages/g1/!m1/sentAt")
            #expect(try await server.get("/userChats/carol/g1/lastMessageAt") == sentAt)
            #expect(try await server.get("/chats/g1/lastMessage/id") == #""!m1""#)
            let post = try await server.send("POST", TestServer.url("/messages/g1", admin: true), text: Self.message)
            #expect(post.status == 200)
            let name = try #require(
                (try JSONSerialization.jsonObject(with: Data(post.body.utf8)) as? [String: Any])?["name"] as? String
            )
            #expect(try await server.get("/chats/g1/lastMessage/id") == #""\#(name)""#)
            #expect(try await server.get("/userChats/alice/g1/unread") == "2")
            let delete = try await server.send("DELETE", TestServer.url("/messages/g1/\(name)", admin: true))
            #expect(delete.status == 200)
            #expect(try await server.get("/chats/g1/lastMessage/id") == #""!m1""#)
            #expect(try await server.get("/unreadTotals/bob") == "2")
        }
    }

    @Test func aWebSocketMessageReachesTheOtherMembersChatListListener() async throws {
        try await Self.withChatServer { server in
            let listener = try await RealtimeTestClient.connect(port: server.port)
            try await listener.authenticateAsAdmin()
            _ = try await listener.response(to: listener.request("q", #"{"p":"/userChats/bob","h":""}"#))
            let sender = try await RealtimeTestClient.connect(port: server.port)
            try await sender.authenticateAsAdmin()
            let put = sender.request(
                "p",
                #"{"p":"/messages/p1/m1","d":\#(Self.message.replacingOccurrences(of: "carol", with: "alice"))}"#
            )
            #expect(try await sender.response(to: put).body["s"] as? String == "ok")
            // Acknowledged: the derived state is there already.
            #expect(try await server.get("/userChats/bob/p1/unread") == "1")
            #expect(try await server.get("/chats/p1/lastMessage/sender") == #""alice""#)
            let push = try await listener.nextPush()
            let data = canonicalJSON((push["b"] as? [String: Any])?["d"])
            #expect(data.contains(#"unread":1"#), "push: \(data)")
            #expect(data.contains("lastMessageAt"), "push: \(data)")
            await sender.close()
            await listener.close()
        }
    }
}
