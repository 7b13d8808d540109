import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

/// Deleting an account also removes its presence, contacts, devices and blocks, and the entries
/// naming it in others' contact and block lists (found by lookup indexes), with every marker.
@Suite(.timeLimit(.minutes(3))) struct AccountDeletionCascadeTests {
    @Test func presenceContactsAndDevicesOfTheUserGo() async throws {
        try await ChatServer.with { chat in
            let (alice, bob) = (chat.uid("Alice"), chat.uid("Bob"))
            for (path, value) in [
                ("/presence/\(bob)", #"{"state":"online","lastChanged":1}"#),
                ("/presence/\(alice)", #"{"state":"offline","lastChanged":1}"#),
                ("/contacts/\(bob)/\(alice)", #"{"addedAt":1,"favorite":true}"#),
                ("/devices/\(bob)/phone", #"{"token":"t1","platform":"fcm","updatedAt":1}"#),
                ("/devices/\(alice)/phone", #"{"token":"t2","platform":"apns","updatedAt":1}"#),
            ] {
                try await chat.server.put(path, value)
            }
            try await chat.deleteAccount("Bob")
            for path in ["/presence/\(bob)", "/contacts/\(bob)", "/devices/\(bob)"] {
                #expect(try await !chat.exists(path), "\(path)")
            }
            // Alice's stay.
            #expect(try await chat.exists("/presence/\(alice)"))
            #expect(try await chat.exists("/devices/\(alice)/phone"))
        }
    }

    @Test func contactEntriesNamingTheUserGoFromEveryList() async throws {
        try await ChatServer.with { chat in
            let (alice, bob, carol, dave) = (chat.uid("Alice"), chat.uid("Bob"), chat.uid("Carol"), chat.uid("Dave"))
            let contact = #"{"addedAt":1,"favorite":false}"#
            for (owner, named) in [(alice, bob), (alice, carol), (carol, bob), (dave, bob), (dave, alice)] {
                try await chat.server.put("/contacts/\(owner)/\(named)", contact)
            }
            try await chat.deleteAccount("Bob")
            #expect(try await chat.object("/contacts/\(alice)").keys.sorted() == [carol])
            #expect(try await !chat.exists("/contacts/\(carol)"))
            #expect(try await chat.object("/contacts/\(dave)").keys.sorted() == [alice])
        }
    }

    /// More entries name the user than one write of the cascade deletes: it takes several.
    @Test func aUserNamedInManyListsLeavesEveryOne() async throws {
        try await ChatServer.with { chat in
            let bob = chat.uid("Bob")
            let owners = (0..<(ChatAccountDeletion.maxPathsPerWrite + 100)).map { "owner\($0)" }
            let entries = owners.map {
                #""\#($0)/\#(bob)":{"addedAt":1,"favorite":false},"\#($0)/other":{"addedAt":1}"#
            }
            let reply = try await chat.server.send(
                "PATCH",
                TestServer.url("/contacts", admin: true),
                text: "{" + entries.joined(separator: ",") + "}"
            )
            #expect(reply.status == 200)
            try await chat.deleteAccount("Bob")
            let contacts = try await chat.object("/contacts")
            #expect(contacts.count == owners.count)
            #expect(contacts.values.allSatisfy { ($0 as? [String: Any])?.keys.sorted() == ["other"] })
        }
    }

    @Test func theUsersBlocksAndTheBlocksNamingThemGoWithTheirMarkers() async throws {
        try await ChatServer.with { chat in
            let (alice, bob, carol) = (chat.uid("Alice"), chat.uid("Bob"), chat.uid("Carol"))
            try await chat.block("Carol", by: "Bob")
            try await chat.block("Alice", by: "Bob")
            try await chat.block("Bob", by: "Alice")
            try await chat.block("Bob", by: "Carol")
            try await chat.block("Carol", by: "Alice")
            try await chat.deleteAccount("Bob")
            #expect(try await !chat.exists("/blocks/\(bob)"))
            #expect(try await chat.server.get("/blocks") == #"{"\#(alice)":{"\#(carol)":true}}"#)
            // One marker left: Alice's block of Carol.
            #expect(
                canonicalJSON(try await chat.object("/blockedSenders"))
                    == canonicalJSON([CreateChat.chatID(alice, carol): [carol: alice]])
            )
        }
    }

    /// Blocks of a user whose account is being deleted, racing the deletion: whatever the
    /// order, none outlives it (`blockUser` commits only while both profiles exist; the
    /// cascade reads the lists after the profile is gone).
    @Test func blocksRacingTheDeletionDoNotOutliveIt() async throws {
        try await ChatServer.with { chat in
            let bob = chat.uid("Bob")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for blocker in ["Alice", "Carol", "Dave"] {
                    group.addTask {
                        for _ in 0..<5 {
                            let reply = try await chat.call("blockUser", as: blocker, data: #"{"uid":"\#(bob)"}"#)
                            #expect(reply.status == 200 || reply.status == 404, "\(reply.body)")
                        }
                    }
                }
                group.addTask { try await chat.deleteAccount("Bob") }
                try await group.waitForAll()
            }
            let blocks = try await chat.object("/blocks")
            #expect(blocks.values.allSatisfy { ($0 as? [String: Any])?[bob] == nil }, "\(blocks)")
            let markers = try await chat.object("/blockedSenders")
            #expect(markers.values.allSatisfy { ($0 as? [String: Any])?[bob] == nil }, "\(markers)")
            // Once the account is gone, blocking it is NOT_FOUND.
            let after = try await chat.call("blockUser", as: "Alice", data: #"{"uid":"\#(bob)"}"#)
            #expect(after.status == 404)
        }
    }
}
