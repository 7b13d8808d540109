import HearthCore
import HearthStore
import Testing

/// The chat app's message trigger at store level: what each message write commits with it.
@Suite(.timeLimit(.minutes(3))) struct MessageTriggerTests {
    static let t = "1700000000000"

    static func with(_ body: (ChatStore) async throws -> Void) async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await chat.seedChats()
        try await body(chat)
    }

    @Test func aNewMessageInAPrivateChatCountsForTheOtherPartyOnly() async throws {
        try await Self.with { chat in
            try await chat.send("m1", in: "p1", from: "alice", text: "hello")
            #expect(
                try await chat.json("/userChats/bob/p1") == #"{"lastMessageAt":\#(Self.t),"name":"Alice","unread":1}"#
            )
            #expect(
                try await chat.json("/userChats/alice/p1") == #"{"lastMessageAt":\#(Self.t),"name":"Bob","unread":0}"#
            )
            #expect(try await chat.json("/unreadTotals") == #"{"alice":0,"bob":1,"carol":0}"#)
            #expect(
                try await chat.json("/chats/p1/lastMessage")
                    == #"{"id":"m1","sender":"alice","sentAt":\#(Self.t),"text":"hello"}"#
            )
            // The group is untouched.
            #expect(try await chat.json("/userChats/bob/g1") == #"{"name":"Hikers","unread":0}"#)
        }
    }

    @Test func aNewMessageInAGroupCountsForEveryOtherMember() async throws {
        try await Self.with { chat in
            try await chat.send("m1", in: "g1", from: "carol")
            for uid in ["alice", "bob"] {
                #expect(try await chat.json("/userChats/\(uid)/g1/unread") == "1")
                #expect(try await chat.json("/userChats/\(uid)/g1/lastMessageAt") == Self.t)
            }
            #expect(
                try await chat.json("/userChats/carol/g1")
                    == #"{"lastMessageAt":\#(Self.t),"name":"Hikers","unread":0}"#
            )
            #expect(try await chat.json("/unreadTotals") == #"{"alice":1,"bob":1,"carol":0}"#)
            #expect(try await chat.json("/chats/g1/lastMessage/id") == #""m1""#)
        }
    }

    @Test func twoMessagesCountTwiceAndTheSecondIsTheLast() async throws {
        try await Self.with { chat in
            try await chat.send("m1", in: "g1", from: "carol")
            try await chat.send("m2", in: "g1", from: "alice", text: "second")
            #expect(try await chat.json("/userChats/bob/g1/unread") == "2")
            #expect(try await chat.json("/userChats/alice/g1/unread") == "1")
            #expect(try await chat.json("/userChats/carol/g1/unread") == "1")
            #expect(try await chat.json("/unreadTotals") == #"{"alice":1,"bob":2,"carol":1}"#)
            #expect(try await chat.json("/chats/g1/lastMessage/text") == #""second""#)
        }
    }

    @Test func aNewMessageOlderThanTheNewestCountsAndLeavesLastMessage() async throws {
        try await Self.with { chat in
            try await chat.send("m2", in: "g1", from: "alice", text: "newest")
            // An id that sorts first: a sender whose clock is behind.
            try await chat.send("m1", in: "g1", from: "carol", text: "older")
            #expect(try await chat.json("/userChats/bob/g1/unread") == "2")
            #expect(try await chat.json("/userChats/alice/g1/unread") == "1")
            #expect(try await chat.json("/userChats/carol/g1/unread") == "1")
            #expect(try await chat.json("/unreadTotals") == #"{"alice":1,"bob":2,"carol":1}"#)
            #expect(
                try await chat.json("/chats/g1/lastMessage")
                    == #"{"id":"m2","sender":"alice","sentAt":\#(Self.t),"text":"newest"}"#
            )
        }
    }

    @Test func deletingTheLastMessageMovesLastMessageBackAndKeepsTheCounters() async throws {
        try await Self.with { chat in
            try await chat.send("m1", in: "g1", from: "carol", text: "one")
            try await chat.send("m2", in: "g1", from: "carol", text: "two")
            try await chat.set("/messages/g1/m2", "null")
            #expect(
                try await chat.json("/chats/g1/lastMessage")
                    == #"{"id":"m1","sender":"carol","sentAt":\#(Self.t),"text":"one"}"#
            )
            #expect(try await chat.json("/userChats/bob/g1/unread") == "2")
            #expect(try await chat.json("/unreadTotals") == #"{"alice":2,"bob":2,"carol":0}"#)
        }
    }

    @Test func deletingAnOlderMessageLeavesLastMessage() async throws {
        try await Self.with { chat in
            try await chat.send("m1", in: "g1", from: "carol", text: "one")
            try await chat.send("m2", in: "g1", from: "carol", text: "two")
            let before = try await chat.json("/chats/g1/lastMessage")
            try await chat.set("/messages/g1/m1", "null")
            #expect(try await chat.json("/chats/g1/lastMessage") == before)
            #expect(try await chat.json("/chats/g1/lastMessage/id") == #""m2""#)
        }
    }

    @Test func deletingTheOnlyMessageRemovesLastMessage() async throws {
        try await Self.with { chat in
            try await chat.send("m1", in: "p1", from: "bob")
            try await chat.set("/messages/p1/m1", "null")
            #expect(try await chat.json("/chats/p1/lastMessage") == "null")
            #expect(try await chat.json("/chats/p1/type") == #""private""#)
            #expect(try await chat.json("/userChats/alice/p1/unread") == "1")
        }
    }

    @Test func editingTheLastMessageRefreshesItAndAnOlderOneChangesNothing() async throws {
        try await Self.with { chat in
            try await chat.send("m1", in: "g1", from: "carol", text: "one")
            try await chat.send("m2", in: "g1", from: "carol", text: "two")
            try await chat.set("/messages/g1/m2/text", #""two, edited""#)
            #expect(try await chat.json("/chats/g1/lastMessage/text") == #""two, edited""#)
            try await chat.set("/messages/g1/m1/text", #""one, edited""#)
            #expect(try await chat.json("/chats/g1/lastMessage/text") == #""two, edited""#)
            #expect(try await chat.json("/userChats/bob/g1/unread") == "2")
        }
    }

    @Test func aMissingEntryIsRecreatedWithItsName() async throws {
        try await Self.with { chat in
            // Bob deleted the private chat for himself; carol's group entry is gone too,
            // and alice (the sender) lost hers.
            try await chat.set("/userChats/bob/p1", "null")
            try await chat.set("/userChats/carol/g1", "null")
            try await chat.set("/userChats/alice/g1", "null")
            try await chat.send("m1", in: "p1", from: "alice")
            #expect(
                try await chat.json("/userChats/bob/p1") == #"{"lastMessageAt":\#(Self.t),"name":"Alice","unread":1}"#
            )
            try await chat.send("m2", in: "g1", from: "alice")
            #expect(
                try await chat.json("/userChats/carol/g1")
                    == #"{"lastMessageAt":\#(Self.t),"name":"Hikers","unread":1}"#
            )
            #expect(
                try await chat.json("/userChats/alice/g1")
                    == #"{"lastMessageAt":\#(Self.t),"name":"Hikers","unread":0}"#
            )
            #expect(try await chat.json("/unreadTotals") == #"{"alice":0,"bob":2,"carol":1}"#)
        }
    }

    @Test func oneUpdateCarryingSeveralMessagesCountsEachAndKeepsTheNewest() async throws {
        try await Self.with { chat in
            let message = #"{"sender":"carol","kind":"text","text":"TEXT","sentAt":{".sv":"timestamp"}}"#
            // The newest key first: the outcome must not depend on the order of the paths.
            try await chat.update(
                "/messages",
                [
                    ("g1/m3", message.replacingOccurrences(of: "TEXT", with: "three")),
                    ("g1/m1", message.replacingOccurrences(of: "TEXT", with: "one")),
                    ("p1/m2", #"{"sender":"alice","kind":"text","text":"two","sentAt":5}"#),
                ],
                as: .user(uid: "carol")
            )
            #expect(try await chat.json("/userChats/alice/g1/unread") == "2")
            #expect(try await chat.json("/userChats/bob/g1/unread") == "2")
            #expect(try await chat.json("/userChats/bob/p1/unread") == "1")
            #expect(try await chat.json("/userChats/bob/p1/lastMessageAt") == "5")
            #expect(try await chat.json("/unreadTotals") == #"{"alice":2,"bob":3,"carol":0}"#)
            #expect(try await chat.json("/chats/g1/lastMessage/text") == #""three""#)
            #expect(try await chat.json("/chats/p1/lastMessage/text") == #""two""#)
            // Deleting the whole chat's messages at once removes the last message.
            try await chat.set("/messages/g1", "null")
            #expect(try await chat.json("/chats/g1/lastMessage") == "null")
            #expect(try await chat.json("/userChats/alice/g1/unread") == "2")
        }
    }

    @Test func aMessageArrivingByTransactionRunsTheTrigger() async throws {
        try await Self.with { chat in
            try await chat.set(
                "/messages/g1/m1",
                #"{"sender":"bob","kind":"text","text":"tx","sentAt":{".sv":"timestamp"}}"#,
                as: .user(uid: "bob"),
                ifMatch: "null_etag"
            )
            #expect(try await chat.json("/userChats/alice/g1/unread") == "1")
            #expect(try await chat.json("/userChats/bob/g1/unread") == "0")
            #expect(try await chat.json("/chats/g1/lastMessage/text") == #""tx""#)
        }
    }

    @Test func malformedMessagesAndChatsWithoutMembersDeriveNothing() async throws {
        try await Self.with { chat in
            // Not an object: committed (the rules refuse it in practice), nothing derived.
            try await chat.set("/messages/g1/m1", #""just text""#)
            #expect(try await chat.json("/userChats/bob/g1/unread") == "0")
            #expect(try await chat.json("/chats/g1/lastMessage") == "null")
            // A chat nobody belongs to.
            try await chat.send("m1", in: "nobody", from: "alice")
            #expect(try await chat.json("/chats/nobody") == "null")
            #expect(
                try await chat.json("/userChats/alice")
                    == #"{"g1":{"name":"Hikers","unread":0},"p1":{"name":"Bob","unread":0}}"#
            )
            try await chat.set("/messages/nobody/m1", "null")
            #expect(try await chat.json("/chats/nobody") == "null")
            // A sender without fields of the right types still counts for the others.
            try await chat.set("/messages/p1/m9", #"{"sender":7,"sentAt":"soon"}"#, as: .user(uid: "alice"))
            #expect(try await chat.json("/userChats/bob/p1/unread") == "1")
            #expect(try await chat.json("/userChats/alice/p1/unread") == "0")
            #expect(try await chat.json("/userChats/bob/p1/lastMessageAt") == Self.t)
            #expect(try await chat.json("/chats/p1/lastMessage") == #"{"id":"m9"}"#)
        }
    }
}
