import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

@Suite struct CreateChatTests {
    @Test func theChatIDDependsOnThePairOnly() {
        let id = CreateChat.chatID("alice", "bob")
        #expect(id == CreateChat.chatID("bob", "alice"))
        #expect(id != CreateChat.chatID("alice", "carol"))
        // The separator keeps "a"+"b_c" and "a_b"+"c" apart.
        #expect(CreateChat.chatID("a", "b_c") != CreateChat.chatID("a_b", "c"))
        #expect(id.count == 33 && id.hasPrefix("p"))
    }

    @Test func aPrivateChatIsCreatedOnceWithBothMembersAndListEntries() async throws {
        try await ChatServer.with { chat in
            let (alice, bob) = (chat.uid("Alice"), chat.uid("Bob"))
            let id = try ChatServer.chatID(
                try await chat.call("createChat", as: "Alice", data: #"{"participant":"\#(bob)"}"#)
            )
            #expect(
                try ChatServer.chatID(
                    try await chat.call("createChat", as: "Bob", data: #"{"participant":"\#(alice)"}"#)
                ) == id
            )
            let room = try await chat.object("/chats/\(id)")
            #expect(room["type"] as? String == "private")
            #expect(room["owner"] as? String == alice)
            let createdAt = try #require(room["createdAt"] as? Double)
            let members = try await chat.object("/members/\(id)")
            #expect(Set(members.keys) == [alice, bob])
            #expect((members[alice] as? [String: Any])?["role"] as? String == "owner")
            #expect((members[bob] as? [String: Any])?["role"] as? String == "member")
            #expect((members[bob] as? [String: Any])?["joinedAt"] as? Double == createdAt)
            let aliceEntry = try await chat.object("/userChats/\(alice)/\(id)")
            let bobEntry = try await chat.object("/userChats/\(bob)/\(id)")
            #expect(canonicalJSON(aliceEntry) == #"{"name":"Bob","unread":0}"#)
            // Strangers: the other party's entry is a conversation request (ConversationRequestTests).
            #expect(canonicalJSON(bobEntry) == #"{"name":"Alice","request":true,"unread":0}"#)
            // A caller who removed the chat from their list (deleteChat for me) gets it back.
            let removed = try await chat.server.send("DELETE", TestServer.url("/userChats/\(bob)/\(id)", admin: true))
            #expect(removed.status == 200)
            #expect(
                try ChatServer.chatID(
                    try await chat.call("createChat", as: "Bob", data: #"{"participant":"\#(alice)"}"#)
                ) == id
            )
            #expect(canonicalJSON(try await chat.object("/userChats/\(bob)/\(id)")) == #"{"name":"Alice","unread":0}"#)
            #expect(try await chat.object("/chats/\(id)")["createdAt"] as? Double == createdAt)
        }
    }

    /// Both sides call at once, many times: one id, one chat, one set of members.
    @Test func concurrentCallsFromBothSidesCreateOneChat() async throws {
        try await ChatServer.with { chat in
            let (carol, dave) = (chat.uid("Carol"), chat.uid("Dave"))
            let listener = try await RealtimeTestClient.connect(port: chat.server.port)
            try await listener.authenticateAsAdmin()
            _ = try await listener.response(to: listener.request("q", #"{"p":"/chats","h":""}"#))
            let ids = try await withThrowingTaskGroup(of: String.self) { group in
                for n in 0..<16 {
                    group.addTask {
                        let (caller, other) = n % 2 == 0 ? ("Carol", dave) : ("Dave", carol)
                        return try ChatServer.chatID(
                            try await chat.call("createChat", as: caller, data: #"{"participant":"\#(other)"}"#)
                        )
                    }
                }
                var ids: Set<String> = []
                for try await id in group { ids.insert(id) }
                return ids
            }
            #expect(ids.count == 1)
            let id = try #require(ids.first)
            #expect(try await chat.object("/chats").keys.sorted() == [id])
            let members = try await chat.object("/members/\(id)")
            #expect(Set(members.keys) == [carol, dave])
            let createdAt = try #require(try await chat.object("/chats/\(id)")["createdAt"] as? Double)
            for member in members.values {
                #expect((member as? [String: Any])?["joinedAt"] as? Double == createdAt)
            }
            #expect(try await chat.object("/userChats/\(carol)").keys.sorted() == [id])
            #expect(try await chat.object("/userChats/\(dave)").keys.sorted() == [id])
            // Exactly one commit created it: commits reach a listener in order, so every push
            // before a later marker write's is counted.
            try await chat.server.put("/chats/~marker", "true")
            var creations = 0
            while true {
                let push = canonicalJSON(try await listener.nextPush()["b"])
                if push.contains("~marker") { break }
                if push.contains(id) { creations += 1 }
            }
            #expect(creations == 1)
            await listener.close()
        }
    }

    @Test func refusalsNameTheFieldAndWriteNothing() async throws {
        try await ChatServer.with { chat in
            let alice = chat.uid("Alice")
            let cases: [(String?, String, Int, String, String)] = [
                ("Alice", #"{"participant":"\#(alice)"}"#, 400, "INVALID_ARGUMENT", "'participant' is the caller"),
                ("Alice", #"{"participant":"ghost"}"#, 404, "NOT_FOUND", "'participant' names 'ghost'"),
                ("Alice", #"{}"#, 400, "INVALID_ARGUMENT", "'participant' is required"),
                ("Alice", #"{"participant":7}"#, 400, "INVALID_ARGUMENT", "'participant' must be a uid string"),
                ("Alice", #"{"participant":"a/b"}"#, 400, "INVALID_ARGUMENT", "'participant' has the uid 'a/b'"),
                ("Alice", #""bob""#, 400, "INVALID_ARGUMENT", "The data must be an object"),
                (nil, #"{"participant":"x"}"#, 401, "UNAUTHENTICATED", "signed-in caller"),
            ]
            for (caller, data, status, code, message) in cases {
                let reply = try await chat.call("createChat", as: caller, data: data)
                #expect(reply.status == status, "\(data): \(reply.body)")
                #expect(reply.body.contains(#""status":"\#(code)""#), "\(data): \(reply.body)")
                #expect(reply.body.contains(message), "\(data): \(reply.body)")
            }
            // An account without a profile is not a registered user.
            let bare = try await chat.accounts.signUp("bare@example.com").string("localId")
            let reply = try await chat.call("createChat", as: "Alice", data: #"{"participant":"\#(bare)"}"#)
            #expect(reply.status == 404)
            // A caller without a profile has no name to show the other party.
            let bareToken = try await chat.accounts.call(
                "signInWithPassword",
                ["email": "bare@example.com", "password": "secret1", "returnSecureToken": true]
            ).string("idToken")
            let unnamed = try await chat.server.send(
                "POST",
                "/functions/createChat",
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(bareToken)")],
                text: #"{"data":{"participant":"\#(alice)"}}"#
            )
            #expect(unnamed.status == 400)
            #expect(unnamed.body.contains(#""status":"FAILED_PRECONDITION""#))
            #expect(unnamed.body.contains("has no profile: write users/\(bare)"))
            #expect(try await chat.server.get("/chats") == "null")
            #expect(try await chat.server.get("/members") == "null")
            #expect(try await chat.server.get("/userChats") == "null")
        }
    }

    @Test func otherNamespacesServeTheChatOnlyWhenNamed() async throws {
        try await ChatServer.with(users: ["Alice", "Bob"]) { chat in
            let bob = chat.uid("Bob")
            let elsewhere = try await chat.call("createChat", as: "Alice", data: #"{"participant":"\#(bob)"}"#, ns: "x")
            #expect(elsewhere.status == 404)
            #expect(elsewhere.body.contains("NOT_FOUND"))
            // chat2 serves it (its profiles live in chat2).
            try await chat.server.put("/users/\(bob)", #"{"displayName":"Bob2","createdAt":1}"#, ns: "chat2")
            try await chat.server.put(
                "/users/\(chat.uid("Alice"))",
                #"{"displayName":"A2","createdAt":1}"#,
                ns: "chat2"
            )
            let there = try await chat.call("createChat", as: "Alice", data: #"{"participant":"\#(bob)"}"#, ns: "chat2")
            let id = try ChatServer.chatID(there)
            #expect(try await chat.server.get("/userChats/\(chat.uid("Alice"))/\(id)/name", ns: "chat2") == #""Bob2""#)
            #expect(try await chat.server.get("/chats") == "null")
        }
    }
}
