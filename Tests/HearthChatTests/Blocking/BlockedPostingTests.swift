import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

/// The shipped rules keep a blocked user from posting into the private chat with the blocker,
/// by every way in, and nothing the blocked user reads shows the block.
@Suite(.timeLimit(.minutes(3))) struct BlockedPostingTests {
    static let users = [("Alice", "+14155550100"), ("Bob", "+14155550101"), ("Carol", "+14155550102")]

    @Test func aBlockedUserCannotPostIntoThePrivateChatByRESTOrWebSocketUntilUnblocked() async throws {
        try await ChatServer.withShippedApp(users: Self.users) { chat in
            let bob = chat.uid("Bob")
            let id = try await chat.privateChat("Alice", "Bob")
            let group = try await chat.group(with: ["Bob", "Carol"])
            _ = try await chat.post("before", as: "Bob", in: id)
            let bobsApp = try await LiveView.open(chat, as: "Bob")
            try await chat.block("Bob", by: "Alice")
            let rest = try await chat.server.send(
                "POST",
                "/messages/\(id).json?auth=\(chat.users["Bob"]!.token)",
                text: ChatServer.message("by REST", from: bob)
            )
            #expect(rest.status == 401 && rest.body.contains("Permission denied"), "\(rest.body)")
            let put = try await chat.server.send(
                "PUT",
                "/messages/\(id)/-NzBlockedByRest0001.json?auth=\(chat.users["Bob"]!.token)",
                text: ChatServer.message("by REST", from: bob)
            )
            #expect(put.status == 401)
            let patch = try await chat.server.send(
                "PATCH",
                "/.json?auth=\(chat.users["Bob"]!.token)",
                text: #"{"messages/\#(id)/-NzBlockedByPatch001":\#(ChatServer.message("by PATCH", from: bob))}"#
            )
            #expect(patch.status == 401)
            let overWebSocket = try await bobsApp.put(
                "/messages/\(id)/-NzBlockedByWS000001",
                ChatServer.message("by WebSocket", from: bob)
            )
            #expect(overWebSocket == "permission_denied")
            // The blocker still posts there; the blocked user still posts everywhere else.
            _ = try await chat.post("still here", as: "Alice", in: id)
            _ = try await chat.post("in the group", as: "Bob", in: group)
            let texts = try await chat.object("/messages/\(id)").values.compactMap {
                ($0 as? [String: Any])?["text"] as? String
            }
            #expect(Set(texts) == ["before", "still here"])
            // Unblocked: both ways in work again.
            try await chat.block("Bob", by: "Alice", unblock: true)
            _ = try await chat.post("after", as: "Bob", in: id)
            #expect(
                try await bobsApp.put("/messages/\(id)/-NzAfterUnblock00001", ChatServer.message("again", from: bob))
                    == "ok"
            )
            #expect(try await chat.object("/messages/\(id)").count == 4)
            await bobsApp.close()
        }
    }

    @Test func nothingABlockedUserReadsRevealsTheBlock() async throws {
        try await ChatServer.withShippedApp(users: Self.users) { chat in
            let (alice, bob) = (chat.uid("Alice"), chat.uid("Bob"))
            let id = try await chat.privateChat("Alice", "Bob")
            _ = try await chat.post("hi", as: "Alice", in: id)
            _ = try await chat.post("hello", as: "Bob", in: id)
            let readable = [
                "/chats/\(id)", "/members/\(id)", "/messages/\(id)", "/userChats/\(bob)", "/unreadTotals/\(bob)",
                "/users/\(alice)", "/blocks/\(bob)",
            ]
            func bobsReads() async throws -> [String] {
                var answers: [String] = []
                for path in readable {
                    let reply = try await chat.read(path, as: "Bob")
                    answers.append("\(path): \(reply.status) \(reply.body)")
                }
                return answers
            }
            let before = try await bobsReads()
            let bobsApp = try await LiveView.open(chat, as: "Bob")
            for path in readable { try await bobsApp.listen(path) }
            try await chat.block("Bob", by: "Alice")
            // No push reached Bob's listens before a later write of his own was answered.
            try await bobsApp.client.expectNoPushesBeforeFence(at: "/users/\(bob)/status", value: #""here""#)
            await bobsApp.close()
            #expect(try await bobsReads() == before)
            // The blocker's list and the markers are not his to read or listen to.
            let hidden = [
                "/blocks/\(alice)", "/blocks/\(alice)/\(bob)", "/blocks", chat.markerPath("Alice", "Bob"),
                "/blockedSenders/\(id)", "/blockedSenders",
            ]
            for path in hidden {
                let reply = try await chat.read(path, as: "Bob")
                #expect(reply.status == 401 && reply.body.contains("Permission denied"), "\(path): \(reply.body)")
                #expect(try await LiveView.listenStatus(chat, as: "Bob", path) == "permission_denied", "\(path)")
            }
            // Alice reads her own list (and nothing of the markers).
            #expect(try await chat.read("/blocks/\(alice)", as: "Alice").body == #"{"\#(bob)":true}"#)
            #expect(try await chat.read(chat.markerPath("Alice", "Bob"), as: "Alice").status == 401)
        }
    }
}
