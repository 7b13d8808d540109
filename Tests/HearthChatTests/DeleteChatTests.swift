import Foundation
import HearthTestSupport
import Testing

@Suite struct DeleteChatTests {
    @Test func forMeTheEntryAndItsUnreadLeaveButIStayAMember() async throws {
        try await ChatServer.with { chat in
            let bob = chat.uid("Bob")
            let group = try await chat.group()
            let direct = try await chat.privateChat("Carol", "Bob")
            for _ in 0..<3 { try await chat.deliver(from: "Alice", in: group, to: ["Bob", "Carol"]) }
            try await chat.deliver(from: "Carol", in: direct, to: ["Bob"])
            let data = #"{"chatId":"\#(group)","forEveryone":false}"#
            #expect(try ChatServer.result(try await chat.call("deleteChat", as: "Bob", data: data)) == "{}")
            #expect(try await chat.server.get("/userChats/\(bob)/\(group)") == "null")
            #expect(try await chat.number("/unreadTotals/\(bob)") == 1)
            #expect(try await chat.object("/members/\(group)")[bob] != nil)
            #expect(try await chat.object("/messages/\(group)").count == 3)
            #expect(try await chat.number("/unreadTotals/\(chat.uid("Carol"))") == 3)
            // Already off the list: nothing more to do.
            #expect(try ChatServer.result(try await chat.call("deleteChat", as: "Bob", data: data)) == "{}")
            #expect(try await chat.number("/unreadTotals/\(bob)") == 1)
        }
    }

    @Test func forEveryoneTheOwnerDeletesTheGroupAndEveryonesCount() async throws {
        try await ChatServer.with { chat in
            let (alice, bob, carol) = (chat.uid("Alice"), chat.uid("Bob"), chat.uid("Carol"))
            let group = try await chat.group()
            let direct = try await chat.privateChat("Carol", "Bob")
            for _ in 0..<2 { try await chat.deliver(from: "Alice", in: group, to: ["Bob", "Carol"]) }
            try await chat.deliver(from: "Carol", in: direct, to: ["Bob"])
            let data = #"{"chatId":"\#(group)","forEveryone":true}"#
            #expect(try ChatServer.result(try await chat.call("deleteChat", as: "Alice", data: data)) == "{}")
            for path in ["/chats/\(group)", "/members/\(group)", "/messages/\(group)"] {
                #expect(try await chat.server.get(path) == "null", "\(path)")
            }
            for uid in [alice, bob, carol] {
                #expect(try await chat.server.get("/userChats/\(uid)/\(group)") == "null")
            }
            #expect(try await chat.number("/unreadTotals/\(bob)") == 1)
            #expect(try await chat.number("/unreadTotals/\(carol)") == 0)
            #expect(try await chat.object("/chats").keys.sorted() == [direct])
        }
    }

    @Test func eitherPartyDeletesAPrivateChatForEveryone() async throws {
        try await ChatServer.with { chat in
            let direct = try await chat.privateChat("Alice", "Bob")
            try await chat.deliver(from: "Alice", in: direct, to: ["Bob"])
            let data = #"{"chatId":"\#(direct)","forEveryone":true}"#
            #expect(try ChatServer.result(try await chat.call("deleteChat", as: "Bob", data: data)) == "{}")
            for path in ["/chats", "/members", "/messages", "/userChats"] {
                #expect(try await chat.server.get(path) == "null", "\(path)")
            }
            #expect(try await chat.number("/unreadTotals/\(chat.uid("Bob"))") == 0)
        }
    }

    /// Messages arriving while chats are deleted for me: the total stays the sum of the
    /// entries (a message after the delete brings the entry back with its count).
    @Test func concurrentMessagesKeepTheTotalTheSumOfTheEntries() async throws {
        try await ChatServer.with { chat in
            let bob = chat.uid("Bob")
            let group = try await chat.group()
            let direct = try await chat.privateChat("Carol", "Bob")
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for n in 0..<40 {
                    tasks.addTask {
                        try await chat.deliver(from: "Carol", in: n % 2 == 0 ? group : direct, to: ["Bob"])
                    }
                }
                for n in 0..<8 {
                    tasks.addTask {
                        let id = n % 2 == 0 ? direct : group
                        let reply = try await chat.call("deleteChat", as: "Bob", data: #"{"chatId":"\#(id)"}"#)
                        #expect(reply.status == 200, "\(reply.body)")
                    }
                }
                try await tasks.waitForAll()
            }
            let entries = try await chat.object("/userChats/\(bob)")
            let sum = entries.values.compactMap { ($0 as? [String: Any])?["unread"] as? Double }.reduce(0, +)
            #expect(try await chat.number("/unreadTotals/\(bob)") ?? 0 == sum)
        }
    }

    @Test func refusalsNameTheFieldAndWriteNothing() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group()
            try await chat.deliver(from: "Alice", in: group, to: ["Bob"])
            try await chat.expectRefusals(
                "deleteChat",
                [
                    ("Bob", #"{"chatId":"\#(group)","forEveryone":true}"#, 403, "PERMISSION_DENIED", "Only the owner"),
                    ("Dave", #"{"chatId":"\#(group)"}"#, 403, "PERMISSION_DENIED", "is not a member"),
                    (
                        "Dave", #"{"chatId":"\#(group)","forEveryone":true}"#, 403, "PERMISSION_DENIED",
                        "is not a member"
                    ),
                    ("Alice", #"{"chatId":"ghost"}"#, 404, "NOT_FOUND", "'chatId' names 'ghost'"),
                    (
                        "Alice", #"{"chatId":"\#(group)","forEveryone":"yes"}"#, 400, "INVALID_ARGUMENT",
                        "'forEveryone' must be true or false"
                    ),
                    ("Alice", #"{"forEveryone":true}"#, 400, "INVALID_ARGUMENT", "'chatId' is required"),
                    (nil, #"{"chatId":"\#(group)"}"#, 401, "UNAUTHENTICATED", "signed-in"),
                ]
            )
        }
    }
}
