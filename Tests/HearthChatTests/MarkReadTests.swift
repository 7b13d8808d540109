import Foundation
import HearthTestSupport
import Testing

@Suite struct MarkReadTests {
    @Test func markingReadZeroesTheChatAndKeepsTheOthersCounted() async throws {
        try await ChatServer.with { chat in
            let bob = chat.uid("Bob")
            let group = try await chat.group()
            let direct = try await chat.privateChat("Alice", "Bob")
            for _ in 0..<3 { try await chat.deliver(from: "Alice", in: group, to: ["Bob", "Carol"]) }
            for _ in 0..<2 { try await chat.deliver(from: "Alice", in: direct, to: ["Bob"]) }
            #expect(try await chat.number("/unreadTotals/\(bob)") == 5)

            let reply = try await chat.call("markRead", as: "Bob", data: #"{"chatId":"\#(group)"}"#)
            #expect(try ChatServer.result(reply) == #"{"unread":0,"unreadTotal":2}"#)
            let entry = try await chat.object("/userChats/\(bob)/\(group)")
            #expect(entry["unread"] as? Double == 0)
            #expect(entry["name"] as? String == "Hikers")
            let readAt = try #require(entry["lastReadAt"] as? Double)
            #expect(try await chat.number("/members/\(group)/\(bob)/lastReadAt") == readAt)
            #expect(try await chat.number("/unreadTotals/\(bob)") == 2)
            #expect(try await chat.number("/userChats/\(bob)/\(direct)/unread") == 2)
            // Carol's count is hers.
            #expect(try await chat.number("/userChats/\(chat.uid("Carol"))/\(group)/unread") == 3)
            // Again: nothing left to read; the total stays.
            let again = try await chat.call("markRead", as: "Bob", data: #"{"chatId":"\#(group)"}"#)
            #expect(try ChatServer.result(again) == #"{"unread":0,"unreadTotal":2}"#)
            #expect(try await chat.number("/unreadTotals/\(bob)") == 2)
        }
    }

    /// The whole change reaches a realtime listener as one commit.
    @Test func theWriteIsOneCommitForAListener() async throws {
        try await ChatServer.with { chat in
            let bob = chat.uid("Bob")
            let group = try await chat.group()
            try await chat.deliver(from: "Alice", in: group, to: ["Bob", "Carol"])
            let listener = try await RealtimeTestClient.connect(port: chat.server.port)
            try await listener.authenticateAsAdmin()
            _ = try await listener.response(to: listener.request("q", #"{"p":"/","h":""}"#))
            let reply = try await chat.call("markRead", as: "Bob", data: #"{"chatId":"\#(group)"}"#)
            #expect(try ChatServer.result(reply) == #"{"unread":0,"unreadTotal":0}"#)
            let push = canonicalJSON(try await listener.nextPush()["b"])
            for part in [
                "userChats/\(bob)/\(group)/unread", "userChats/\(bob)/\(group)/lastReadAt",
                "members/\(group)/\(bob)/lastReadAt", "unreadTotals/\(bob)",
            ] {
                #expect(push.contains(part), "\(part) in \(push)")
            }
            await listener.close()
        }
    }

    /// Messages arriving while the reader marks the chat read: every message is either read
    /// or still counted, and the total is the sum of the entries.
    @Test func concurrentMessagesAreNeitherLostNorCountedTwice() async throws {
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
                for n in 0..<12 {
                    tasks.addTask {
                        let id = n % 3 == 0 ? direct : group
                        let reply = try await chat.call("markRead", as: "Bob", data: #"{"chatId":"\#(id)"}"#)
                        #expect(reply.status == 200, "\(reply.body)")
                    }
                }
                try await tasks.waitForAll()
            }
            let groupUnread = try #require(try await chat.number("/userChats/\(bob)/\(group)/unread"))
            let directUnread = try #require(try await chat.number("/userChats/\(bob)/\(direct)/unread"))
            #expect(try await chat.number("/unreadTotals/\(bob)") == groupUnread + directUnread)
            // Reading both leaves nothing.
            _ = try await chat.call("markRead", as: "Bob", data: #"{"chatId":"\#(group)"}"#)
            let last = try await chat.call("markRead", as: "Bob", data: #"{"chatId":"\#(direct)"}"#)
            #expect(try ChatServer.result(last) == #"{"unread":0,"unreadTotal":0}"#)
        }
    }

    /// A total that disagrees with the entries (below the entry's count) ends at 0, not below.
    @Test func theTotalNeverGoesBelowZero() async throws {
        try await ChatServer.with { chat in
            let bob = chat.uid("Bob")
            let group = try await chat.group()
            for _ in 0..<3 { try await chat.deliver(from: "Alice", in: group, to: ["Bob"]) }
            try await chat.server.put("/unreadTotals/\(bob)", "1")
            let reply = try await chat.call("markRead", as: "Bob", data: #"{"chatId":"\#(group)"}"#)
            #expect(try ChatServer.result(reply) == #"{"unread":0,"unreadTotal":0}"#)
            #expect(try await chat.number("/unreadTotals/\(bob)") == 0)
        }
    }

    /// A member who removed the chat from their list gets the read receipt only: the chat does
    /// not come back without a message.
    @Test func withoutAListEntryOnlyTheReceiptMoves() async throws {
        try await ChatServer.with { chat in
            let bob = chat.uid("Bob")
            let group = try await chat.group()
            try await chat.deliver(from: "Alice", in: group, to: ["Bob"])
            _ = try ChatServer.result(try await chat.call("deleteChat", as: "Bob", data: #"{"chatId":"\#(group)"}"#))
            let reply = try await chat.call("markRead", as: "Bob", data: #"{"chatId":"\#(group)"}"#)
            #expect(try ChatServer.result(reply) == #"{"unread":0,"unreadTotal":0}"#)
            #expect(try await chat.server.get("/userChats/\(bob)/\(group)") == "null")
            #expect(try await chat.number("/members/\(group)/\(bob)/lastReadAt") != nil)
        }
    }

    @Test func refusalsNameTheFieldAndWriteNothing() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group()
            try await chat.deliver(from: "Alice", in: group, to: ["Bob"])
            try await chat.expectRefusals(
                "markRead",
                [
                    (
                        "Dave", #"{"chatId":"\#(group)"}"#, 403, "PERMISSION_DENIED",
                        "'\(chat.uid("Dave"))' is not a member"
                    ),
                    ("Bob", #"{"chatId":"nope"}"#, 404, "NOT_FOUND", "'chatId' names 'nope'"),
                    ("Bob", #"{}"#, 400, "INVALID_ARGUMENT", "'chatId' is required"),
                    ("Bob", #"{"chatId":3}"#, 400, "INVALID_ARGUMENT", "'chatId' must be a chat id string"),
                    ("Bob", #"{"chatId":"a/b"}"#, 400, "INVALID_ARGUMENT", "'chatId' has the value 'a/b'"),
                    ("Bob", #"[]"#, 400, "INVALID_ARGUMENT", "The data must be an object"),
                    (nil, #"{"chatId":"\#(group)"}"#, 401, "UNAUTHENTICATED", "signed-in"),
                ]
            )
        }
    }
}
