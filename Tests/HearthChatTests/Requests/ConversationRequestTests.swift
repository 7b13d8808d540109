import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

/// Conversation requests (`ConversationRequest`): the flag `createChat` sets on the other
/// party's entry between strangers, and each of the three things that clear it, in the commit
/// that causes it, by every way in.
@Suite(.timeLimit(.minutes(3))) struct ConversationRequestTests {
    @Test func aChatBetweenStrangersIsARequestToTheOtherPartyOnly() async throws {
        try await ChatServer.withShippedFriends { chat in
            let id = try await chat.startChat("Alice", with: "Bob")
            #expect(try await chat.entry(of: "Bob", id) == #"{"name":"Alice","request":true,"unread":0}"#)
            #expect(try await chat.entry(of: "Alice", id) == #"{"name":"Bob","unread":0}"#)
            // Calling again (either side) neither sets nor clears anything.
            #expect(try await chat.startChat("Alice", with: "Bob") == id)
            #expect(try await chat.startChat("Bob", with: "Alice") == id)
            #expect(try await chat.hasRequest("Bob", id))
            #expect(try await !chat.hasRequest("Alice", id))
        }
    }

    /// Either party having the other in contacts (or both) makes no request.
    @Test func noRequestWhenEitherHasTheOtherInContacts() async throws {
        try await ChatServer.withShippedFriends { chat in
            #expect(try await chat.addContact("Alice", "Bob") == 200)  // the caller has the participant
            #expect(try await chat.addContact("Carol", "Alice") == 200)  // the participant has the caller
            #expect(try await chat.addContact("Alice", "Dave") == 200)  // both
            #expect(try await chat.addContact("Dave", "Alice") == 200)
            for other in ["Bob", "Carol", "Dave"] {
                let id = try await chat.startChat("Alice", with: other)
                #expect(try await chat.entry(of: other, id) == #"{"name":"Alice","unread":0}"#, "\(other)")
            }
            // Strangers still get one.
            let strangers = try await chat.startChat("Bob", with: "Carol")
            #expect(try await chat.hasRequest("Carol", strangers))
        }
    }

    /// The other party adds the starter while the chat is being created: in either order the
    /// flag ends up absent (the creating write requires the contacts it decided from; a contact
    /// added after it clears the flag), for every pair of the four users.
    @Test func aContactAddedWhileTheChatIsCreatedLeavesNoRequest() async throws {
        try await ChatServer.withShippedFriends { chat in
            let names = ["Alice", "Bob", "Carol", "Dave"]
            for (index, starter) in names.enumerated() {
                for other in names[(index + 1)...] {
                    async let added = chat.addContact(other, starter)
                    async let started = chat.startChat(starter, with: other)
                    let (status, id) = try await (added, started)
                    #expect(status == 200)
                    #expect(try await !chat.hasRequest(other, id), "\(starter) → \(other)")
                    #expect(try await chat.entry(of: other, id) == #"{"name":"\#(starter)","unread":0}"#)
                }
            }
        }
    }

    @Test func acceptChatClearsTheFlagAndNothingElse() async throws {
        try await ChatServer.withShippedFriends { chat in
            let id = try await chat.startChat("Alice", with: "Bob")
            _ = try await chat.post("hello?", as: "Alice", in: id)
            let before = try await chat.entry(of: "Bob", id)
            #expect(before == #"{"name":"Alice","request":true,"unread":1}"#)
            let bob = try await LiveView.open(chat, as: "Bob")
            try await bob.listen("/userChats/\(chat.uid("Bob"))/\(id)")
            try await bob.waitUntil("the request") { $0.value("userChats/\(chat.uid("Bob"))/\(id)/request") != nil }
            let reply = try await chat.call("acceptChat", as: "Bob", data: #"{"chatId":"\#(id)"}"#)
            #expect(reply.status == 200)
            #expect(reply.body == #"{"result":{}}"#)
            // Read right after the answer: cleared, the rest of the entry as it was.
            #expect(try await chat.entry(of: "Bob", id) == #"{"name":"Alice","unread":1}"#)
            try await bob.waitUntil("the request cleared") {
                $0.value("userChats/\(chat.uid("Bob"))/\(id)/request") == nil
            }
            // Accepting again is harmless.
            #expect(
                try await chat.call("acceptChat", as: "Bob", data: #"{"chatId":"\#(id)"}"#).body == #"{"result":{}}"#
            )
            // The starter has nothing to accept either.
            #expect(try await chat.call("acceptChat", as: "Alice", data: #"{"chatId":"\#(id)"}"#).status == 200)
            await bob.close()
        }
    }

    /// The other party's first message clears their flag in the message's own commit: the
    /// listener on their entry gets one push with both the new `lastMessageAt` and the flag
    /// gone. The starter's messages leave it.
    @Test func aReplyClearsTheFlagInTheMessagesCommit() async throws {
        try await ChatServer.withShippedFriends { chat in
            let id = try await chat.startChat("Alice", with: "Bob")
            _ = try await chat.post("hi Bob", as: "Alice", in: id)
            _ = try await chat.post("are you there?", as: "Alice", in: id)
            #expect(try await chat.hasRequest("Bob", id))
            let entryPath = "/userChats/\(chat.uid("Bob"))/\(id)"
            let listener = try await RealtimeTestClient.connect(port: chat.server.port)
            try await listener.authenticateAsAdmin()
            _ = try await listener.response(to: listener.request("q", #"{"p":"\#(entryPath)","h":""}"#))
            let message = try await chat.post("hi Alice", as: "Bob", in: id)
            #expect(try await !chat.hasRequest("Bob", id))
            // The first push after the reply: the whole entry without the flag (`d`), or a
            // merge removing it (`m`); either way with the reply's time.
            let push = try await listener.nextPush()
            let pushed = canonicalJSON((push["b"] as? [String: Any])?["d"])
            let sentAt = try await chat.server.get("/messages/\(id)/\(message)/sentAt")
            #expect(pushed.contains(#""lastMessageAt":\#(sentAt)"#), "\(pushed)")
            switch push["a"] as? String {
            case "d": #expect(!pushed.contains("request") && pushed.contains("name"), "\(pushed)")
            case "m": #expect(pushed.contains(#""request":null"#), "\(pushed)")
            default: Issue.record("not a data push: \(push)")
            }
            #expect(try await chat.server.get("\(entryPath)/request") == "null")
            await listener.close()
        }
    }

    /// Adding the starter as a contact clears the flag, by REST, by WebSocket, and by
    /// `matchContacts` with `add: true`; the starter adding the other party does not.
    @Test func addingTheStarterAsAContactClearsTheFlagByEveryWayIn() async throws {
        try await ChatServer.withShippedFriends { chat in
            let (withBob, withCarol, withDave) = (
                try await chat.startChat("Alice", with: "Bob"), try await chat.startChat("Alice", with: "Carol"),
                try await chat.startChat("Alice", with: "Dave")
            )
            // The starter's own contact changes nothing.
            #expect(try await chat.addContact("Alice", "Bob") == 200)
            #expect(try await chat.hasRequest("Bob", withBob))
            // REST, read right after the acknowledgment.
            #expect(try await chat.addContact("Bob", "Alice") == 200)
            #expect(try await chat.entry(of: "Bob", withBob) == #"{"name":"Alice","unread":0}"#)
            // WebSocket.
            let carol = try await LiveView.open(chat, as: "Carol")
            let status = try await carol.put(
                "/contacts/\(chat.uid("Carol"))/\(chat.uid("Alice"))",
                #"{"addedAt":{".sv":"timestamp"},"favorite":true}"#
            )
            #expect(status == "ok")
            #expect(try await !chat.hasRequest("Carol", withCarol))
            await carol.close()
            // matchContacts with add: Dave's address book has Alice's number.
            let match = try await chat.call(
                "matchContacts",
                as: "Dave",
                data: #"{"phoneNumbers":["415-555-0100"],"add":true}"#
            )
            #expect(try ChatServer.matches(match).keys.sorted() == [chat.uid("Alice")])
            #expect(try await !chat.hasRequest("Dave", withDave))
            #expect(try await chat.object("/contacts/\(chat.uid("Dave"))").keys.sorted() == [chat.uid("Alice")])
        }
    }

    /// One commit adds the contact and clears the flag: an admin listener on the root gets
    /// them in one push.
    @Test func theContactAndTheClearedFlagAreOneCommit() async throws {
        try await ChatServer.withShippedFriends { chat in
            let id = try await chat.startChat("Alice", with: "Bob")
            let listener = try await RealtimeTestClient.connect(port: chat.server.port)
            try await listener.authenticateAsAdmin()
            _ = try await listener.response(to: listener.request("q", #"{"p":"/","h":""}"#))
            #expect(try await chat.addContact("Bob", "Alice") == 200)
            let push = try await listener.nextPush()
            let pushed = canonicalJSON(push["b"])
            #expect(pushed.contains(chat.uid("Alice")) && pushed.contains("addedAt"), "\(pushed)")
            #expect(pushed.contains(id) && pushed.contains("request"), "\(pushed)")
            try await listener.expectNoPushesBeforeFence(at: "/fence")
            await listener.close()
        }
    }

    /// What does not clear the flag: the starter writing again, a read receipt, createChat by
    /// either side. An entry deleted "for me" goes with its flag; the next message brings the
    /// chat back as an ordinary one (deleting was the answer to the request).
    @Test func theFlagStaysUntilAnsweredAndGoesWithADeletedEntry() async throws {
        try await ChatServer.withShippedFriends { chat in
            let id = try await chat.startChat("Alice", with: "Bob")
            _ = try await chat.post("one", as: "Alice", in: id)
            #expect(try await chat.call("markRead", as: "Bob", data: #"{"chatId":"\#(id)"}"#).status == 200)
            _ = try await chat.startChat("Bob", with: "Alice")
            _ = try await chat.post("two", as: "Alice", in: id)
            #expect(try await chat.entry(of: "Bob", id) == #"{"name":"Alice","request":true,"unread":1}"#)
            #expect(try await chat.call("deleteChat", as: "Bob", data: #"{"chatId":"\#(id)"}"#).status == 200)
            #expect(try await chat.server.get("/userChats/\(chat.uid("Bob"))/\(id)") == "null")
            _ = try await chat.post("three", as: "Alice", in: id)
            #expect(try await chat.entry(of: "Bob", id) == #"{"name":"Alice","unread":1}"#)
        }
    }
}
