import Foundation
import HearthFunctions
import HearthTestSupport
import Testing

@testable import HearthChat

@Suite struct AddMembersTests {
    @Test func listedUIDsAreDedupedWithoutTheCaller() throws {
        #expect(try AddMembers.listed(["b", "me", "b", "c"], caller: "me") == ["b", "c"])
        #expect(try AddMembers.listed(["me"], caller: "me") == [])
        #expect(throws: CallableError.self) { try AddMembers.listed([], caller: "me") }
        #expect(throws: CallableError.self) { try AddMembers.listed(["b", true], caller: "me") }
    }

    @Test func anyMemberAddsNewMembersAndAlreadyMembersAreIgnored() async throws {
        try await ChatServer.with(users: ["Alice", "Bob", "Carol", "Dave", "Erin"]) { chat in
            let group = try await chat.group()
            try await chat.deliver(from: "Alice", in: group, to: ["Bob"])
            let before = try await chat.object("/members/\(group)")
            let data =
                #"{"chatId":"\#(group)","participants":["\#(chat.uid("Dave"))","\#(chat.uid("Alice"))","\#(chat.uid("Erin"))","\#(chat.uid("Dave"))"]}"#
            #expect(try ChatServer.result(try await chat.call("addMembers", as: "Bob", data: data)) == "{}")
            let members = try await chat.object("/members/\(group)")
            #expect(Set(members.keys) == Set(["Alice", "Bob", "Carol", "Dave", "Erin"].map(chat.uid)))
            // Those already in keep their standing (Alice stays the owner, with her joinedAt).
            #expect(canonicalJSON(members[chat.uid("Alice")]) == canonicalJSON(before[chat.uid("Alice")]))
            let joinedAt = try #require((members[chat.uid("Dave")] as? [String: Any])?["joinedAt"] as? Double)
            for name in ["Dave", "Erin"] {
                let member = try #require(members[chat.uid(name)] as? [String: Any])
                #expect(member["role"] as? String == "member")
                #expect(member["joinedAt"] as? Double == joinedAt)
                #expect(
                    canonicalJSON(try await chat.object("/userChats/\(chat.uid(name))/\(group)"))
                        == #"{"name":"Hikers","unread":0}"#
                )
            }
            #expect(try await chat.number("/userChats/\(chat.uid("Bob"))/\(group)/unread") == 1)
            // Only those already in: nothing to do.
            let again = #"{"chatId":"\#(group)","participants":["\#(chat.uid("Erin"))"]}"#
            let snapshot = try await chat.server.get("/")
            #expect(try ChatServer.result(try await chat.call("addMembers", as: "Carol", data: again)) == "{}")
            #expect(try await chat.server.get("/") == snapshot)
        }
    }

    @Test func refusalsNameTheFieldAndWriteNothing() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group()
            let direct = try await chat.privateChat("Alice", "Bob")
            let dave = chat.uid("Dave")
            let tooMany = "[" + (0...500).map { #""u\#($0)""# }.joined(separator: ",") + "]"
            try await chat.expectRefusals(
                "addMembers",
                [
                    (
                        "Dave", #"{"chatId":"\#(group)","participants":["\#(dave)"]}"#, 403, "PERMISSION_DENIED",
                        "is not a member"
                    ),
                    (
                        "Alice", #"{"chatId":"\#(direct)","participants":["\#(dave)"]}"#, 400, "INVALID_ARGUMENT",
                        "the private chat"
                    ),
                    (
                        "Alice", #"{"chatId":"ghost","participants":["\#(dave)"]}"#, 404, "NOT_FOUND",
                        "'chatId' names 'ghost'"
                    ),
                    (
                        "Bob", #"{"chatId":"\#(group)","participants":["\#(dave)","ghost","phantom"]}"#, 404,
                        "NOT_FOUND",
                        "'participants' names 'ghost', 'phantom'"
                    ),
                    ("Bob", #"{"chatId":"\#(group)","participants":[]}"#, 400, "INVALID_ARGUMENT", "at least 1"),
                    (
                        "Bob", #"{"chatId":"\#(group)","participants":"\#(dave)"}"#, 400, "INVALID_ARGUMENT",
                        "must be an array"
                    ),
                    (
                        "Bob", #"{"chatId":"\#(group)","participants":[1]}"#, 400, "INVALID_ARGUMENT",
                        "'participants[0]'"
                    ),
                    (
                        "Bob", #"{"chatId":"\#(group)","participants":\#(tooMany)}"#, 400, "INVALID_ARGUMENT",
                        "the limit is 500"
                    ),
                    (nil, #"{"chatId":"\#(group)","participants":["\#(dave)"]}"#, 401, "UNAUTHENTICATED", "signed-in"),
                ]
            )
        }
    }

    /// A group at createGroup's size takes no one more.
    @Test func aFullGroupTakesNoOneMore() async throws {
        try await ChatServer.with(users: ["Alice", "Bob", "Carol", "Dave"]) { chat in
            let group = try await chat.group()
            // Fill the roster up to the limit directly (signing up 500 users would be slow).
            let fillers = (0..<(AddMembers.maxMembers - 3)).map { #""f\#($0)":{"role":"member","joinedAt":1}"# }
            let reply = try await chat.server.send(
                "PATCH",
                TestServer.url("/members/\(group)", admin: true),
                text: "{" + fillers.joined(separator: ",") + "}"
            )
            #expect(reply.status == 200)
            try await chat.expectRefusals(
                "addMembers",
                [
                    (
                        "Bob", #"{"chatId":"\#(group)","participants":["\#(chat.uid("Dave"))"]}"#, 400,
                        "INVALID_ARGUMENT",
                        "\(AddMembers.maxMembers + 1) members; the limit is \(AddMembers.maxMembers)"
                    )
                ]
            )
        }
    }
}
