import Foundation
import HearthFunctions
import HearthTestSupport
import Testing

@testable import HearthChat

@Suite struct CreateGroupTests {
    /// Names are trimmed and counted in user-perceived characters.
    @Test(arguments: [
        ("  Hikers \n", "Hikers"),
        ("🥾", "🥾"),
        (String(repeating: "👩🏽‍💻", count: 25), String(repeating: "👩🏽‍💻", count: 25)),
        (String(repeating: "e\u{301}", count: 25), String(repeating: "e\u{301}", count: 25)),
        ("\u{3000}Club\u{00A0}", "Club"),
    ])
    func namesWithinTheLimitAreTrimmed(_ raw: String, _ expected: String) throws {
        #expect(try CreateGroup.groupName(raw) == expected)
    }

    @Test(arguments: ["", "   \n\t", String(repeating: "a", count: 26), String(repeating: "👍🏿", count: 26)])
    func namesOutsideTheLimitAreRefused(_ raw: String) {
        #expect(throws: CallableError.self) { try CreateGroup.groupName(raw) }
    }

    @Test func participantsAreDedupedWithoutTheCaller() throws {
        #expect(try CreateGroup.others(["b", "c", "b", "me", "d"], caller: "me") == ["b", "c", "d"])
        #expect(throws: CallableError.self) { try CreateGroup.others(["b", "me", "b"], caller: "me") }
        #expect(throws: CallableError.self) { try CreateGroup.others(["b", 3], caller: "me") }
    }

    @Test func aGroupHasItsOwnerMembersAndEveryMembersListEntry() async throws {
        try await ChatServer.with { chat in
            let (alice, bob, carol) = (chat.uid("Alice"), chat.uid("Bob"), chat.uid("Carol"))
            let data =
                #"{"name":"  Hikers 🥾 ","participants":["\#(bob)","\#(carol)","\#(bob)","\#(alice)"],"photoUrl":"https://x/p.jpg"}"#
            let id = try ChatServer.chatID(try await chat.call("createGroup", as: "Alice", data: data))
            let room = try await chat.object("/chats/\(id)")
            #expect(room["type"] as? String == "group")
            #expect(room["name"] as? String == "Hikers 🥾")
            #expect(room["owner"] as? String == alice)
            #expect(room["photoUrl"] as? String == "https://x/p.jpg")
            let createdAt = try #require(room["createdAt"] as? Double)
            let members = try await chat.object("/members/\(id)")
            #expect(Set(members.keys) == [alice, bob, carol])
            for (uid, member) in members {
                let fields = member as? [String: Any]
                #expect(fields?["role"] as? String == (uid == alice ? "owner" : "member"))
                #expect(fields?["joinedAt"] as? Double == createdAt)
                let entry = try await chat.object("/userChats/\(uid)/\(id)")
                #expect(canonicalJSON(entry) == #"{"name":"Hikers 🥾","unread":0}"#)
            }
            #expect(try await chat.server.get("/userChats/\(chat.uid("Dave"))") == "null")
        }
    }

    @Test func refusalsNameTheFieldAndWriteNothing() async throws {
        try await ChatServer.with { chat in
            let (alice, bob, carol) = (chat.uid("Alice"), chat.uid("Bob"), chat.uid("Carol"))
            let longURL = String(repeating: "u", count: 2049)
            let cases: [(String, Int, String, String)] = [
                (
                    #"{"name":"   ","participants":["\#(bob)","\#(carol)"]}"#, 400, "INVALID_ARGUMENT",
                    "'name' must be 1 to 25"
                ),
                (#"{"participants":["\#(bob)","\#(carol)"]}"#, 400, "INVALID_ARGUMENT", "'name' is required"),
                (
                    #"{"name":5,"participants":["\#(bob)","\#(carol)"]}"#, 400, "INVALID_ARGUMENT",
                    "'name' must be a string"
                ),
                (#"{"name":"G","participants":["\#(bob)","\#(alice)"]}"#, 400, "INVALID_ARGUMENT", "at least 2 other"),
                (#"{"name":"G","participants":"\#(bob)"}"#, 400, "INVALID_ARGUMENT", "'participants' must be an array"),
                (
                    #"{"name":"G","participants":["\#(bob)",null]}"#, 400, "INVALID_ARGUMENT",
                    "'participants[1]' must be a uid"
                ),
                (#"{"name":"G","participants":["\#(bob)","ghost"]}"#, 404, "NOT_FOUND", "'participants' names 'ghost'"),
                (
                    #"{"name":"G","participants":["\#(bob)","\#(carol)"],"photoUrl":"\#(longURL)"}"#, 400,
                    "INVALID_ARGUMENT",
                    "'photoUrl' is 2049 characters long"
                ),
                (
                    #"{"name":"G","participants":["\#(bob)","\#(carol)"],"photoUrl":1}"#, 400, "INVALID_ARGUMENT",
                    "'photoUrl' must be a string"
                ),
            ]
            for (data, status, code, message) in cases {
                let reply = try await chat.call("createGroup", as: "Alice", data: data)
                #expect(reply.status == status, "\(data.prefix(80)): \(reply.body)")
                #expect(reply.body.contains(#""status":"\#(code)""#), "\(data.prefix(80)): \(reply.body)")
                #expect(reply.body.contains(message), "\(data.prefix(80)): \(reply.body)")
            }
            let tooMany = "[" + (0...500).map { #""u\#($0)""# }.joined(separator: ",") + "]"
            let reply = try await chat.call(
                "createGroup",
                as: "Alice",
                data: #"{"name":"G","participants":\#(tooMany)}"#
            )
            #expect(reply.status == 400)
            #expect(reply.body.contains("the limit is 500"))
            #expect(try await chat.server.get("/chats") == "null")
            #expect(try await chat.server.get("/members") == "null")
            #expect(try await chat.server.get("/userChats") == "null")
        }
    }
}
