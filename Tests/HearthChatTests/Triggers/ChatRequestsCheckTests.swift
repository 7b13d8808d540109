import HearthChat
import HearthCore
import HearthDatabase
import HearthStore
import Testing

/// `ChatConsistencyCheck` on contacts and conversation requests: a pending request and
/// well-formed lists pass; every kind of leftover or malformed value is reported with its path.
@Suite(.timeLimit(.minutes(3))) struct ChatRequestsCheckTests {
    /// `ChatStore.seed` with Alice's contact Carol (a favorite) and Bob's pending request in p1,
    /// where only Alice wrote.
    static func pending(_ chat: ChatStore) async throws {
        try await chat.seedChats()
        try await chat.set("/contacts/alice/carol", #"{"addedAt":5,"favorite":true}"#)
        try await chat.set("/userChats/bob/p1/request", "true")
        try await chat.send("m1", in: "p1", from: "alice")
    }

    @Test func aPendingRequestAndWellFormedContactsPass() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await Self.pending(chat)
        #expect(try await ChatConsistencyCheckTests.check(chat).disagreements == [])
        #expect(try await chat.json("/userChats/bob/p1/request") == "true")
    }

    /// A reply clears the flag in the message's commit (the trigger), so the check stays clean;
    /// a flag written back afterwards is reported.
    @Test func aFlagLeftAfterAReplyIsReported() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await Self.pending(chat)
        try await chat.send("m2", in: "p1", from: "bob")
        #expect(try await chat.json("/userChats/bob/p1/request") == "null")
        #expect(try await ChatConsistencyCheckTests.check(chat).disagreements == [])
        try await chat.set("/userChats/bob/p1/request", "true")
        #expect(
            try await ChatConsistencyCheckTests.check(chat).disagreements == [
                "userChats/bob/p1/request is set, but bob replied (message m2): the reply should have cleared it"
            ]
        )
    }

    @Test func everyLeftoverOrMalformedValueIsReported() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await Self.pending(chat)
        try await chat.update(
            "/",
            [
                // p1 is not the id createChat derives for alice and bob: no trigger clears the flag.
                ("contacts/bob/alice", #"{"addedAt":6,"favorite":false}"#),
                ("userChats/alice/g1/request", "true"),
                ("userChats/carol/g1/request", "false"),
                ("contacts/alice/ghost", #"{"addedAt":7,"favorite":false}"#),
                ("contacts/alice/alice", #"{"addedAt":8,"favorite":false}"#),
                ("contacts/carol/bob", #"{"addedAt":"today","favorite":"yes","note":1}"#),
                ("contacts/ghost/alice", #"{"addedAt":9,"favorite":false}"#),
                ("contacts/dave", "true"),
            ]
        )
        #expect(
            try await ChatConsistencyCheckTests.check(chat).disagreements == [
                "contacts/alice/alice names its owner",
                "contacts/alice/ghost names 'ghost', who is not a registered user",
                #"contacts/carol/bob is {addedAt: "today", favorite: "yes", note: 1}, not {addedAt: <number>, favorite: <boolean>}"#,
                "contacts/dave is true, not a list",
                "contacts/ghost is the contact list of 'ghost', who is not a registered user",
                "userChats/alice/g1/request is set on an entry of 'g1', which is not a private chat",
                "userChats/bob/p1/request is set, but bob has the other party alice in contacts: adding them should have cleared it",
                "userChats/carol/g1/request is false, not true (a cleared request is absent)",
            ]
        )
    }
}
