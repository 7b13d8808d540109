import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

extension ChatServer {
    /// `name` deletes their own account (`accounts:delete` with their ID token).
    func deleteAccount(_ name: String) async throws {
        let answer = try await accounts.call("delete", ["idToken": users[name]!.token])
        guard answer.status == 200 else { throw TestFailure("delete \(name): \(answer.status) \(answer.json)") }
    }

    /// Whether anything is stored at `path` (admin read).
    func exists(_ path: String) async throws -> Bool {
        try await server.get(path) != "null"
    }
}

@Suite(.timeLimit(.minutes(3))) struct AccountDeletionTests {
    @Test func deletingAnAccountLeavesEveryChatAndRemovesTheProfileAndItsIndexEntries() async throws {
        try await ChatServer.with { chat in
            let (alice, bob, carol) = (chat.uid("Alice"), chat.uid("Bob"), chat.uid("Carol"))
            try await chat.setPhone("Bob", "+14155550101")
            try await chat.rename("Bob", to: "Bob Builder")
            // Alice owns the group; Bob, then Carol joined. Bob has a private chat with Alice
            // and one with Dave, and owns a group whose only other member leaves first.
            let group = try await chat.group(with: ["Bob", "Carol"])
            let withAlice = try await chat.privateChat("Bob", "Alice")
            let withDave = try await chat.privateChat("Dave", "Bob")
            let sent = try await chat.deliver(from: "Bob", in: group, to: ["Alice", "Carol"])
            try await chat.deliver(from: "Alice", in: group, to: ["Bob", "Carol"])
            try await chat.deliver(from: "Alice", in: withAlice, to: ["Bob"])
            try await chat.deleteAccount("Bob")
            // The profile and what it was found by are gone.
            #expect(try await !chat.exists("/users/\(bob)"))
            #expect(try await !chat.exists("/userChats/\(bob)"))
            #expect(try await !chat.exists("/unreadTotals/\(bob)"))
            let match = try await chat.call("matchContacts", as: "Alice", data: #"{"phoneNumbers":["+14155550101"]}"#)
            #expect(try ChatServer.matches(match).isEmpty)
            #expect(try await chat.search("builder", as: "Alice") == [])
            // Bob left the group; Alice still owns it; his message stays, with its sender.
            #expect(Set(try await chat.object("/members/\(group)").keys) == [alice, carol])
            #expect(try await chat.object("/chats/\(group)")["owner"] as? String == alice)
            #expect(try await chat.object("/messages/\(group)/\(sent)")["sender"] as? String == bob)
            // The private chats stay for the other party, who owns them now.
            for (id, other) in [(withAlice, alice), (withDave, chat.uid("Dave"))] {
                #expect(Set(try await chat.object("/members/\(id)").keys) == [other])
                #expect(try await chat.object("/chats/\(id)")["owner"] as? String == other)
                #expect(try await chat.exists("/userChats/\(other)/\(id)"))
            }
        }
    }

    @Test func theAdminDeletesAnAccountAndTheLastMemberOutDeletesTheGroup() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group(with: ["Bob", "Carol"])
            for name in ["Bob", "Carol"] { try await chat.leave(name, group) }
            let alice = chat.uid("Alice")
            let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]
            let answer = try await chat.accounts.call("delete", ["localId": alice], headers: admin)
            #expect(answer.status == 200)
            for path in ["/chats/\(group)", "/members/\(group)", "/users/\(alice)", "/userChats/\(alice)"] {
                #expect(try await !chat.exists(path), "\(path)")
            }
            // The account is gone too; deleting it again is USER_NOT_FOUND and changes nothing.
            let again = try await chat.accounts.call("delete", ["localId": alice], headers: admin)
            #expect(again.status == 400)
        }
    }
}
