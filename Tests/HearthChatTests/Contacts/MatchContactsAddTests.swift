import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

/// `matchContacts` with `add: true`: the matches join the caller's contacts in one commit with
/// the lookup; entries already there keep their `addedAt` and `favorite`.
@Suite(.timeLimit(.minutes(3))) struct MatchContactsAddTests {
    static func withFriends(
        quota: ContactLookupQuota = ContactLookupQuota(),
        run body: (ChatServer) async throws -> Void
    ) async throws {
        try await ChatServer.with(quota: quota) { chat in
            try await chat.setPhone("Alice", "+14155550100")
            try await chat.setPhone("Bob", "+14155550101")
            try await chat.setPhone("Carol", "+14155550102")
            try await body(chat)
        }
    }

    /// Alice's contact list (admin read).
    static func contacts(_ chat: ChatServer) async throws -> [String: [String: Any]] {
        try await chat.object("/contacts/\(chat.uid("Alice"))").compactMapValues { $0 as? [String: Any] }
    }

    @Test func everyMatchIsAddedInOneCommit() async throws {
        try await Self.withFriends { chat in
            let listener = try await RealtimeTestClient.connect(port: chat.server.port)
            try await listener.authenticateAsAdmin()
            _ = try await listener.response(to: listener.request("q", #"{"p":"/contacts","h":""}"#))
            let reply = try await chat.call(
                "matchContacts",
                as: "Alice",
                data:
                    #"{"phoneNumbers":["(415) 555-0101","415 555 0102","+1 202 555 0000","415-555-0100"],"emails":["DAVE@example.com"],"add":true}"#
            )
            let matched = try ChatServer.matches(reply)
            let expected = ["Bob", "Carol", "Dave"].map { chat.uid($0) }.sorted()
            #expect(matched.keys.sorted() == expected)
            let list = try await Self.contacts(chat)
            #expect(list.keys.sorted() == expected)
            for entry in list.values {
                #expect(entry.keys.sorted() == ["addedAt", "favorite"])
                #expect(entry["favorite"] as? Bool == false)
            }
            // One commit: one server time for all, and one push to the listener.
            #expect(Set(list.values.compactMap { $0["addedAt"] as? Double }).count == 1)
            let push = canonicalJSON(try await listener.nextPush()["b"])
            for uid in expected { #expect(push.contains(uid), "\(push)") }
            try await listener.expectNoPushesBeforeFence(at: "/fence")
            await listener.close()
        }
    }

    @Test func contactsAlreadyThereKeepTheirAddedAtAndFavorite() async throws {
        try await Self.withFriends { chat in
            let (bob, carol) = (chat.uid("Bob"), chat.uid("Carol"))
            try await chat.server.put("/contacts/\(chat.uid("Alice"))/\(bob)", #"{"addedAt":7,"favorite":true}"#)
            let data = #"{"phoneNumbers":["+14155550101","+14155550102"],"add":true}"#
            #expect(try await chat.call("matchContacts", as: "Alice", data: data).status == 200)
            let first = try await Self.contacts(chat)
            #expect(first.keys.sorted() == [bob, carol].sorted())
            #expect(canonicalJSON(first[bob]) == #"{"addedAt":7,"favorite":true}"#)
            let carolAdded = try #require(first[carol]?["addedAt"] as? Double)
            // Again: nothing changes (idempotent), and without `add` nothing is added.
            #expect(try await chat.call("matchContacts", as: "Alice", data: data).status == 200)
            let second = try await Self.contacts(chat)
            #expect(canonicalJSON(second) == canonicalJSON(first))
            #expect(second[carol]?["addedAt"] as? Double == carolAdded)
            for data in [#"{"phoneNumbers":["+14155550100"]}"#, #"{"phoneNumbers":["+14155550100"],"add":false}"#] {
                #expect(try await chat.call("matchContacts", as: "Bob", data: data).status == 200)
            }
            #expect(try await chat.server.get("/contacts/\(bob)") == "null")
        }
    }

    @Test func addMustBeABooleanAndARefusedCallAddsNothing() async throws {
        let quota = ContactLookupQuota(limits: .init(capacity: 1, refillPerHour: 1))
        try await Self.withFriends(quota: quota) { chat in
            for value in [#""yes""#, "1", "[]"] {
                let reply = try await chat.call(
                    "matchContacts",
                    as: "Alice",
                    data: #"{"phoneNumbers":["+14155550101"],"add":\#(value)}"#
                )
                #expect(reply.status == 400)
                let failure = try ChatServer.failure(reply)
                #expect(failure.status == "INVALID_ARGUMENT")
                #expect(failure.message.contains("'add' must be true or false"), "\(failure.message)")
            }
            // Those refusals charged nothing: the one token is still there. Two new numbers
            // are past it: refused whole, nothing added.
            let exhausted = try await chat.call(
                "matchContacts",
                as: "Alice",
                data: #"{"phoneNumbers":["+14155550101","+14155550102"],"add":true}"#
            )
            #expect(try ChatServer.failure(exhausted).status == "RESOURCE_EXHAUSTED")
            #expect(try await chat.server.get("/contacts") == "null")
            let one = try await chat.call(
                "matchContacts",
                as: "Alice",
                data: #"{"phoneNumbers":["+14155550101"],"add":true}"#
            )
            #expect(try ChatServer.matches(one).keys.sorted() == [chat.uid("Bob")])
            #expect(try await Self.contacts(chat).keys.sorted() == [chat.uid("Bob")])
        }
    }
}
