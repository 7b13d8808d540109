import Foundation
import HearthTestSupport
import Testing

/// Steps 4 to 7 of `ChatScenarioTests`: reading, deleting and leaving.
extension ChatScenario {
    /// 4. Bob reads the group: his count goes to 0 and his total keeps the private chat's
    /// message; his read receipt is readable by Carol, a member, and by no outsider.
    func markReadZeroesTheCountAndLeavesAReceiptForMembersOnly() async throws {
        let (bob, carol) = (uid("Bob"), uid("Carol"))
        // A message in the private chat first, so Bob's total is more than the group's count.
        _ = try await chat.post("Lunch?", as: "Alice", in: direct)
        try await view("Bob").waitUntil("1 unread in the private chat, 6 in all") {
            $0.number("userChats/\(bob)/\(direct)/unread") == 1 && $0.number("unreadTotals/\(bob)") == 6
        }

        let reply = try await chat.call("markRead", as: "Bob", data: #"{"chatId":"\#(group)"}"#)
        #expect(try ChatServer.result(reply) == #"{"unread":0,"unreadTotal":1}"#)
        try await view("Bob").waitUntil("the group read, 1 unread in all") {
            $0.number("userChats/\(bob)/\(group)/unread") == 0 && $0.number("unreadTotals/\(bob)") == 1
        }
        let readAt = try #require(try await chat.number("/members/\(group)/\(bob)/lastReadAt"))
        #expect(view("Bob").number("userChats/\(bob)/\(group)/lastReadAt") == readAt)
        #expect(try await chat.number("/userChats/\(bob)/\(direct)/unread") == 1)
        // Carol's count is hers.
        #expect(try await chat.number("/userChats/\(carol)/\(group)/unread") == 5)
        #expect(try await chat.number("/unreadTotals/\(carol)") == 5)

        // The receipt: a member reads it, an outsider reads nothing of the group.
        let seen = try await chat.read("/members/\(group)/\(bob)/lastReadAt", as: "Carol")
        #expect(seen.status == 200 && Double(seen.body) == readAt, "Carol reads Bob's receipt: \(seen.body)")
        for path in [
            "/members/\(group)/\(bob)/lastReadAt", "/members/\(group)", "/chats/\(group)", "/messages/\(group)",
        ] {
            let refused = try await chat.read(path, as: "Dave")
            #expect(refused.status == 401 && refused.body.contains("Permission denied"), "Dave reads \(path)")
        }
        #expect(try await chat.read("/members/\(direct)", as: "Carol").status == 401)
        // Nor may an outsider post into the group.
        let intrusion = try await chat.server.send(
            "POST",
            "/messages/\(group).json?auth=\(chat.users["Dave"]!.token)",
            text: ChatServer.message("hello?", from: uid("Dave"))
        )
        #expect(intrusion.status == 401, "Dave posts into the group: \(intrusion.body)")
        #expect(try await chat.object("/messages/\(group)").count == 5)
    }

    /// 5. Alice deletes her newest message: it is gone for everyone (Bob's listener is told),
    /// `lastMessage` moves back to the one before, and no unread count changes.
    func aDeletedMessageIsGoneForEveryone() async throws {
        let messages = try await chat.object("/messages/\(group)")
        let ids = messages.keys.sorted()
        let (newest, previous) = (ids[ids.count - 1], ids[ids.count - 2])
        let countsBefore = try await unreadCounts()

        let data = #"{"chatId":"\#(group)","messageId":"\#(newest)"}"#
        #expect(try ChatServer.result(try await chat.call("deleteMessage", as: "Alice", data: data)) == "{}")
        try await view("Bob").waitUntil("the newest message removed") {
            $0.value("messages/\(group)/\(newest)") == nil
        }
        #expect((view("Bob").value("messages/\(group)") as? [String: Any])?.keys.sorted() == Array(ids.dropLast()))
        #expect(try await chat.object("/messages/\(group)").keys.sorted() == Array(ids.dropLast()))
        let lastMessage = try await chat.object("/chats/\(group)/lastMessage")
        let before = try #require(messages[previous] as? [String: Any])
        #expect(lastMessage["id"] as? String == previous)
        #expect(lastMessage["text"] as? String == before["text"] as? String)
        #expect(lastMessage["sentAt"] as? Double == before["sentAt"] as? Double)
        #expect(try await unreadCounts() == countsBefore)
    }

    /// 6. Alice, the owner, leaves: the member who has been in the group longest owns it. Then
    /// the others leave, and the last one out deletes the group with its members and messages.
    func theOwnerLeavesAndTheLastOneOutDeletesTheGroup() async throws {
        // Bob and Carol joined in the same commit, so the heir would be the one whose uid sorts
        // first. For `joinedAt` to decide, that one (`first`) leaves and is added back: now the
        // other (`second`) has been in the group longest.
        let byUID = ["Bob", "Carol"].sorted { uid($0).utf8.lexicographicallyPrecedes(uid($1).utf8) }
        let (first, second) = (byUID[0], byUID[1])
        let totalBefore = try #require(try await chat.number("/unreadTotals/\(uid(first))"))
        let unreadBefore = try #require(try await chat.number("/userChats/\(uid(first))/\(group)/unread"))
        try await leave(first)
        #expect(try await chat.number("/unreadTotals/\(uid(first))") == totalBefore - unreadBefore)
        let add = #"{"chatId":"\#(group)","participants":["\#(uid(first))"]}"#
        #expect(try ChatServer.result(try await chat.call("addMembers", as: "Alice", data: add)) == "{}")
        try await view(first).waitUntil("the group back on the list") {
            $0.value("userChats/\(uid(first))/\(group)/name") as? String == "Hikers"
        }
        let rejoined = try #require(try await chat.number("/members/\(group)/\(uid(first))/joinedAt"))
        let joined = try #require(try await chat.number("/members/\(group)/\(uid(second))/joinedAt"))
        try #require(rejoined > joined, "\(first) rejoined after \(second) joined")

        try await leave("Alice")
        #expect(try await chat.object("/chats/\(group)")["owner"] as? String == uid(second))
        let members = try await chat.object("/members/\(group)")
        #expect(Set(members.keys) == [uid(first), uid(second)])
        #expect((members[uid(second)] as? [String: Any])?["role"] as? String == "owner")
        #expect((members[uid(first)] as? [String: Any])?["role"] as? String == "member")
        #expect(try await chat.server.get("/userChats/\(uid("Alice"))/\(group)") == "null")
        #expect(try await chat.read("/messages/\(group)", as: "Alice").status == 401)

        try await leave(first)
        #expect(Set(try await chat.object("/members/\(group)").keys) == [uid(second)])
        #expect(try await chat.object("/chats/\(group)")["owner"] as? String == uid(second))
        try await leave(second)
        for path in ["/chats/\(group)", "/members/\(group)", "/messages/\(group)"] {
            #expect(try await chat.server.get(path) == "null", "\(path) after the last one left")
        }
        for name in ["Alice", "Bob", "Carol"] {
            #expect(try await chat.server.get("/userChats/\(uid(name))/\(group)") == "null", "\(name)'s entry")
        }
        #expect(try await chat.number("/unreadTotals/\(uid("Bob"))") == 1)
        #expect(try await chat.number("/unreadTotals/\(uid("Carol"))") == 0)
        // Once Bob was no longer a member, the rules took his messages listen away.
        try await view("Bob").waitUntil("his messages listen cancelled") {
            $0.cancelled.contains("messages/\(group)")
        }
    }

    /// 7. Bob deletes the private chat for everyone: the chat, its members, its messages and
    /// both entries go, and his total loses the message he had not read.
    func aPrivateChatDeletedForEveryoneLeavesNothing() async throws {
        let (alice, bob) = (uid("Alice"), uid("Bob"))
        let data = #"{"chatId":"\#(direct)","forEveryone":true}"#
        #expect(try ChatServer.result(try await chat.call("deleteChat", as: "Bob", data: data)) == "{}")
        try await view("Bob").waitUntil("the private chat gone, nothing unread") {
            $0.value("userChats/\(bob)/\(direct)") == nil && $0.number("unreadTotals/\(bob)") == 0
        }
        try await view("Alice").waitUntil("the private chat gone") { $0.value("userChats/\(alice)/\(direct)") == nil }
        for path in ["/chats", "/members", "/messages", "/userChats"] {
            #expect(try await chat.server.get(path) == "null", "\(path) at the end")
        }
        for name in ["Alice", "Bob", "Carol", "Dave"] {
            #expect(try await chat.number("/unreadTotals/\(uid(name))") ?? 0 == 0, "\(name)'s total at the end")
        }
        #expect(try await chat.read("/messages/\(direct)", as: "Alice").status == 401)
    }

    /// `name` leaves the group (`removeMember` of themselves); their listener sees the entry go.
    func leave(_ name: String) async throws {
        let data = #"{"chatId":"\#(group)","uid":"\#(uid(name))"}"#
        #expect(try ChatServer.result(try await chat.call("removeMember", as: name, data: data)) == "{}", "\(name)")
        try await view(name).waitUntil("the group off the list") { $0.value("userChats/\(uid(name))/\(group)") == nil }
    }

    /// Every user's total and per-chat unread counts, as canonical JSON (admin reads).
    func unreadCounts() async throws -> String {
        var counts: [String: Any] = ["totals": try await chat.object("/unreadTotals")]
        for name in ["Alice", "Bob", "Carol"] {
            let list = try await chat.object("/userChats/\(uid(name))")
            counts[name] = list.mapValues { ($0 as? [String: Any])?["unread"] ?? NSNull() }
        }
        return canonicalJSON(counts)
    }
}
