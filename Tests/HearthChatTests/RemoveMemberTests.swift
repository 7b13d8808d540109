import Foundation
import HearthFunctions
import HearthTestSupport
import Testing

@testable import HearthChat

@Suite struct RemoveMemberTests {
    @Test func theHeirJoinedEarliestWithTiesByUID() {
        let member = { (joinedAt: Double?) in ChatRoom.Member(role: "member", joinedAt: joinedAt) }
        let room = ChatRoom(
            id: "g",
            isGroup: true,
            owner: "o",
            name: "G",
            members: ["o": member(1), "zed": member(5), "amy": member(5), "late": member(9), "none": member(nil)]
        )
        #expect(room.longestStanding(excluding: "o") == "amy")
        #expect(room.longestStanding(excluding: "amy") == "o")
        let alone = ChatRoom(id: "g", isGroup: true, owner: "o", name: "G", members: ["o": member(1)])
        #expect(alone.longestStanding(excluding: "o") == nil)
    }

    @Test func theOwnerRemovesAMemberWhoseUnreadLeavesTheirTotal() async throws {
        try await ChatServer.with { chat in
            let bob = chat.uid("Bob")
            let group = try await chat.group()
            let direct = try await chat.privateChat("Carol", "Bob")
            for _ in 0..<3 { try await chat.deliver(from: "Alice", in: group, to: ["Bob", "Carol"]) }
            try await chat.deliver(from: "Carol", in: direct, to: ["Bob"])
            let data = #"{"chatId":"\#(group)","uid":"\#(bob)"}"#
            #expect(try ChatServer.result(try await chat.call("removeMember", as: "Alice", data: data)) == "{}")
            #expect(Set(try await chat.object("/members/\(group)").keys) == [chat.uid("Alice"), chat.uid("Carol")])
            #expect(try await chat.server.get("/userChats/\(bob)/\(group)") == "null")
            #expect(try await chat.number("/unreadTotals/\(bob)") == 1)
            #expect(try await chat.number("/unreadTotals/\(chat.uid("Carol"))") == 3)
            #expect(try await chat.object("/chats/\(group)")["owner"] as? String == chat.uid("Alice"))
        }
    }

    @Test func whenTheOwnerLeavesTheLongestStandingMemberOwnsTheGroup() async throws {
        try await ChatServer.with { chat in
            let (alice, carol, dave) = (chat.uid("Alice"), chat.uid("Carol"), chat.uid("Dave"))
            let group = try await chat.group()
            _ = try ChatServer.result(
                try await chat.call(
                    "addMembers",
                    as: "Alice",
                    data: #"{"chatId":"\#(group)","participants":["\#(dave)"]}"#
                )
            )
            // Bob joined after Dave, Carol before him.
            try await chat.server.put("/members/\(group)/\(chat.uid("Bob"))/joinedAt", "9999999999999")
            try await chat.server.put("/members/\(group)/\(carol)/joinedAt", "1")
            #expect(
                try ChatServer.result(
                    try await chat.call("removeMember", as: "Alice", data: #"{"chatId":"\#(group)","uid":"\#(alice)"}"#)
                ) == "{}"
            )
            #expect(try await chat.object("/chats/\(group)")["owner"] as? String == carol)
            let members = try await chat.object("/members/\(group)")
            #expect(members[alice] == nil)
            #expect((members[carol] as? [String: Any])?["role"] as? String == "owner")
            #expect((members[dave] as? [String: Any])?["role"] as? String == "member")
            #expect(try await chat.server.get("/userChats/\(alice)/\(group)") == "null")
            // The new owner may now remove others; Alice is no longer anyone here.
            let kick = #"{"chatId":"\#(group)","uid":"\#(dave)"}"#
            #expect(try ChatServer.result(try await chat.call("removeMember", as: "Carol", data: kick)) == "{}")
            #expect(try await chat.call("removeMember", as: "Alice", data: kick).status == 403)
        }
    }

    /// Everyone leaves at once: each leave is judged on the roster it changes, so the last one
    /// deletes the group and nothing is left behind.
    @Test func whenTheLastMemberLeavesTheGroupIsDeleted() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group()
            try await chat.deliver(from: "Alice", in: group, to: ["Bob", "Carol"])
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for name in ["Alice", "Bob", "Carol"] {
                    tasks.addTask {
                        let data = #"{"chatId":"\#(group)","uid":"\#(chat.uid(name))"}"#
                        let reply = try await chat.call("removeMember", as: name, data: data)
                        #expect(reply.status == 200, "\(name): \(reply.body)")
                    }
                }
                try await tasks.waitForAll()
            }
            for path in ["/chats", "/members", "/messages", "/userChats"] {
                #expect(try await chat.server.get(path) == "null", "\(path)")
            }
            for name in ["Alice", "Bob", "Carol"] {
                #expect(try await chat.number("/unreadTotals/\(chat.uid(name))") ?? 0 == 0)
            }
        }
    }

    @Test func refusalsNameTheFieldAndWriteNothing() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group()
            let direct = try await chat.privateChat("Alice", "Bob")
            let (bob, carol, dave) = (chat.uid("Bob"), chat.uid("Carol"), chat.uid("Dave"))
            try await chat.expectRefusals(
                "removeMember",
                [
                    ("Bob", #"{"chatId":"\#(group)","uid":"\#(carol)"}"#, 403, "PERMISSION_DENIED", "Only the owner"),
                    ("Dave", #"{"chatId":"\#(group)","uid":"\#(dave)"}"#, 403, "PERMISSION_DENIED", "is not a member"),
                    ("Alice", #"{"chatId":"\#(direct)","uid":"\#(bob)"}"#, 400, "INVALID_ARGUMENT", "the private chat"),
                    ("Alice", #"{"chatId":"ghost","uid":"\#(bob)"}"#, 404, "NOT_FOUND", "'chatId' names 'ghost'"),
                    ("Alice", #"{"chatId":"\#(group)","uid":"\#(dave)"}"#, 404, "NOT_FOUND", "'uid' names '\(dave)'"),
                    (
                        "Alice", #"{"chatId":"\#(group)","uid":"a.b"}"#, 400, "INVALID_ARGUMENT",
                        "'uid' has the uid 'a.b'"
                    ),
                    ("Alice", #"{"chatId":"\#(group)"}"#, 400, "INVALID_ARGUMENT", "'uid' is required"),
                    (nil, #"{"chatId":"\#(group)","uid":"\#(bob)"}"#, 401, "UNAUTHENTICATED", "signed-in"),
                ]
            )
        }
    }
}
