import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

/// A blocked user cannot start a chat with the blocker or add them to a group: the answers are
/// those for an unregistered user, word for word; after unblocking, all works again.
@Suite(.timeLimit(.minutes(3))) struct BlockedCallerTests {
    @Test func createChatWithABlockerIsNotFoundAsForAnUnregisteredUser() async throws {
        try await ChatServer.with { chat in
            let (alice, bob) = (chat.uid("Alice"), chat.uid("Bob"))
            let unknown = try await chat.call("createChat", as: "Bob", data: #"{"participant":"ghost"}"#)
            try await chat.block("Bob", by: "Alice")
            let refused = try await chat.call("createChat", as: "Bob", data: #"{"participant":"\#(alice)"}"#)
            #expect(refused.status == 404)
            #expect(ChatServer.shape(refused, hiding: alice) == ChatServer.shape(unknown, hiding: "ghost"))
            #expect(try await chat.server.get("/chats") == "null")
            #expect(try await chat.server.get("/userChats") == "null")
            // The blocker may still start it; the blocked user still cannot "create" it again
            // (which would put it back on their list).
            let id = try await chat.privateChat("Alice", "Bob")
            _ = try await chat.server.send("DELETE", TestServer.url("/userChats/\(bob)/\(id)", admin: true))
            let again = try await chat.call("createChat", as: "Bob", data: #"{"participant":"\#(alice)"}"#)
            #expect(ChatServer.shape(again, hiding: alice) == ChatServer.shape(unknown, hiding: "ghost"))
            #expect(try await chat.server.get("/userChats/\(bob)") == "null")
            // Unblocked: Bob gets the chat (and his entry) back.
            try await chat.block("Bob", by: "Alice", unblock: true)
            #expect(try await chat.privateChat("Bob", "Alice") == id)
            #expect(try await chat.exists("/userChats/\(bob)/\(id)"))
        }
    }

    @Test func createGroupWithABlockerIsNotFoundAsForAnUnregisteredUser() async throws {
        try await ChatServer.with { chat in
            let (alice, bob, carol) = (chat.uid("Alice"), chat.uid("Bob"), chat.uid("Carol"))
            let unknown = try await chat.call(
                "createGroup",
                as: "Bob",
                data: #"{"name":"Hikers","participants":["\#(carol)","ghost"]}"#
            )
            try await chat.block("Bob", by: "Alice")
            let refused = try await chat.call(
                "createGroup",
                as: "Bob",
                data: #"{"name":"Hikers","participants":["\#(carol)","\#(alice)"]}"#
            )
            #expect(refused.status == 404)
            #expect(ChatServer.shape(refused, hiding: alice) == ChatServer.shape(unknown, hiding: "ghost"))
            #expect(try await chat.server.get("/chats") == "null")
            // The blocker may still add the blocked user to a group of theirs.
            let group = try await chat.group(with: ["Bob", "Carol"])
            #expect(Set(try await chat.object("/members/\(group)").keys) == [alice, bob, carol])
            try await chat.block("Bob", by: "Alice", unblock: true)
            let created = try await chat.call(
                "createGroup",
                as: "Bob",
                data: #"{"name":"Hikers","participants":["\#(carol)","\#(alice)"]}"#
            )
            #expect(created.status == 200)
        }
    }

    @Test func addMembersOfABlockerIsNotFoundAsForAnUnregisteredUser() async throws {
        try await ChatServer.with { chat in
            let (alice, dave) = (chat.uid("Alice"), chat.uid("Dave"))
            // Bob's group with Carol and Dave; Alice blocks Bob.
            let created = try await chat.call(
                "createGroup",
                as: "Bob",
                data: #"{"name":"Climbers","participants":["\#(chat.uid("Carol"))","\#(dave)"]}"#
            )
            let group = try ChatServer.chatID(created)
            let unknown = try await chat.call(
                "addMembers",
                as: "Bob",
                data: #"{"chatId":"\#(group)","participants":["ghost"]}"#
            )
            try await chat.block("Bob", by: "Alice")
            let refused = try await chat.call(
                "addMembers",
                as: "Bob",
                data: #"{"chatId":"\#(group)","participants":["\#(alice)"]}"#
            )
            #expect(refused.status == 404)
            #expect(ChatServer.shape(refused, hiding: alice) == ChatServer.shape(unknown, hiding: "ghost"))
            #expect(try await chat.object("/members/\(group)")[alice] == nil)
            // Another member whom Alice did not block may add her.
            let byDave = try await chat.call(
                "addMembers",
                as: "Dave",
                data: #"{"chatId":"\#(group)","participants":["\#(alice)"]}"#
            )
            #expect(byDave.status == 200)
            _ = try await chat.call("removeMember", as: "Alice", data: #"{"chatId":"\#(group)","uid":"\#(alice)"}"#)
            try await chat.block("Bob", by: "Alice", unblock: true)
            let added = try await chat.call(
                "addMembers",
                as: "Bob",
                data: #"{"chatId":"\#(group)","participants":["\#(alice)"]}"#
            )
            #expect(added.status == 200)
            #expect(try await chat.object("/members/\(group)")[alice] != nil)
        }
    }
}
