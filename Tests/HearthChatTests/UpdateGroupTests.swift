import Foundation
import HearthTestSupport
import Testing

@Suite struct UpdateGroupTests {
    @Test func theOwnerRenamesForEveryMemberAndChangesThePhoto() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group()
            // Carol removed the group from her list: a rename does not bring it back.
            _ = try ChatServer.result(try await chat.call("deleteChat", as: "Carol", data: #"{"chatId":"\#(group)"}"#))
            let rename = #"{"chatId":"\#(group)","name":"  Climbers 🧗 ","photoUrl":"https://x/c.jpg"}"#
            #expect(try ChatServer.result(try await chat.call("updateGroup", as: "Alice", data: rename)) == "{}")
            let room = try await chat.object("/chats/\(group)")
            #expect(room["name"] as? String == "Climbers 🧗")
            #expect(room["photoUrl"] as? String == "https://x/c.jpg")
            for name in ["Alice", "Bob"] {
                #expect(try await chat.server.get("/userChats/\(chat.uid(name))/\(group)/name") == #""Climbers 🧗""#)
            }
            #expect(try await chat.server.get("/userChats/\(chat.uid("Carol"))/\(group)") == "null")
            // The photo alone; null removes it; the name stays.
            let remove = #"{"chatId":"\#(group)","photoUrl":null}"#
            #expect(try ChatServer.result(try await chat.call("updateGroup", as: "Alice", data: remove)) == "{}")
            let after = try await chat.object("/chats/\(group)")
            #expect(after["photoUrl"] == nil)
            #expect(after["name"] as? String == "Climbers 🧗")
        }
    }

    /// Renames racing with joins: whichever commits first, every member's entry ends with the
    /// group's final name (each decision is re-made when the other overtook it).
    @Test func concurrentRenamesAndJoinsLeaveEveryEntryWithTheGroupsName() async throws {
        try await ChatServer.with(users: ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]) { chat in
            let group = try await chat.group()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for n in 0..<6 {
                    tasks.addTask {
                        let data = #"{"chatId":"\#(group)","name":"Name \#(n)"}"#
                        let reply = try await chat.call("updateGroup", as: "Alice", data: data)
                        #expect(reply.status == 200, "\(reply.body)")
                    }
                }
                for name in ["Dave", "Erin", "Frank"] {
                    tasks.addTask {
                        let data = #"{"chatId":"\#(group)","participants":["\#(chat.uid(name))"]}"#
                        let reply = try await chat.call("addMembers", as: "Bob", data: data)
                        #expect(reply.status == 200, "\(reply.body)")
                    }
                }
                try await tasks.waitForAll()
            }
            let final = try #require(try await chat.object("/chats/\(group)")["name"] as? String)
            let members = try await chat.object("/members/\(group)")
            #expect(members.count == 6)
            for uid in members.keys {
                #expect(try await chat.server.get("/userChats/\(uid)/\(group)/name") == "\"\(final)\"")
            }
        }
    }

    @Test func refusalsNameTheFieldAndWriteNothing() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group()
            let direct = try await chat.privateChat("Alice", "Bob")
            let long = String(repeating: "u", count: 2049)
            try await chat.expectRefusals(
                "updateGroup",
                [
                    ("Bob", #"{"chatId":"\#(group)","name":"Mine"}"#, 403, "PERMISSION_DENIED", "Only the owner"),
                    ("Dave", #"{"chatId":"\#(group)","name":"Mine"}"#, 403, "PERMISSION_DENIED", "is not a member"),
                    ("Alice", #"{"chatId":"\#(direct)","name":"Us"}"#, 400, "INVALID_ARGUMENT", "the private chat"),
                    ("Alice", #"{"chatId":"ghost","name":"X"}"#, 404, "NOT_FOUND", "'chatId' names 'ghost'"),
                    (
                        "Alice", #"{"chatId":"\#(group)","name":"  "}"#, 400, "INVALID_ARGUMENT",
                        "'name' must be 1 to 25"
                    ),
                    (
                        "Alice", #"{"chatId":"\#(group)","name":"\#(String(repeating: "é", count: 26))"}"#, 400,
                        "INVALID_ARGUMENT", "'name' must be 1 to 25"
                    ),
                    ("Alice", #"{"chatId":"\#(group)","name":7}"#, 400, "INVALID_ARGUMENT", "'name' must be a string"),
                    (
                        "Alice", #"{"chatId":"\#(group)","name":null}"#, 400, "INVALID_ARGUMENT",
                        "'name' must be a string"
                    ),
                    (
                        "Alice", #"{"chatId":"\#(group)","photoUrl":"\#(long)"}"#, 400, "INVALID_ARGUMENT",
                        "'photoUrl' is 2049"
                    ),
                    (
                        "Alice", #"{"chatId":"\#(group)","photoUrl":[]}"#, 400, "INVALID_ARGUMENT",
                        "'photoUrl' must be a string"
                    ),
                    ("Alice", #"{"chatId":"\#(group)"}"#, 400, "INVALID_ARGUMENT", "Give 'name' or 'photoUrl'"),
                    ("Alice", #"{"name":"X"}"#, 400, "INVALID_ARGUMENT", "'chatId' is required"),
                    (nil, #"{"chatId":"\#(group)","name":"X"}"#, 401, "UNAUTHENTICATED", "signed-in"),
                ]
            )
        }
    }
}
