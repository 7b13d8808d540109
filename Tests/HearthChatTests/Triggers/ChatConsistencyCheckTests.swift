import HearthChat
import HearthCore
import HearthDatabase
import HearthStore
import Testing

/// `ChatConsistencyCheck`: nothing to report after the trigger kept the state, and every kind
/// of corruption reported with its path.
@Suite(.timeLimit(.minutes(3))) struct ChatConsistencyCheckTests {
    static func check(_ chat: ChatStore) async throws -> ChatConsistencyCheck.Outcome {
        try await chat.ns.read { ChatConsistencyCheck(snapshot: NamespaceSnapshot(reader: $0)).run() }
    }

    /// Messages, deletions and a chat deleted "for me" (entry removed, its unread subtracted
    /// from the total, as `deleteChat` does), then a message that brings it back.
    static func activity(_ chat: ChatStore) async throws {
        try await chat.seedChats()
        try await chat.send("m1", in: "g1", from: "carol")
        try await chat.send("m2", in: "g1", from: "alice")
        try await chat.send("m3", in: "p1", from: "bob")
        try await chat.set("/messages/g1/m2", "null")
        try await chat.update("/", [("userChats/bob/g1", "null"), ("unreadTotals/bob", "0")])
        try await chat.send("m4", in: "p1", from: "alice")
    }

    @Test func stateKeptByTheTriggerHasNoDisagreement() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await Self.activity(chat)
        let outcome = try await Self.check(chat)
        #expect(outcome.disagreements == [])
        #expect(outcome.chats == 2)
        #expect(outcome.users == 3)
    }

    /// Four senders at once whose ids interleave (each sender's increase, but a later write
    /// often sorts before an earlier one): staged together, a message older than one staged
    /// before it leaves `lastMessage` to that one, and nothing disagrees.
    @Test func concurrentMessagesInAnyKeyOrderKeepEveryDerivedValue() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await chat.seedChats()
        let senders = ["alice", "bob", "carol", "alice"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, sender) in senders.enumerated() {
                group.addTask {
                    for sequence in 0..<25 {
                        let id = "s" + String(sequence + 100) + "c" + String(index)
                        try await chat.send(id, in: "g1", from: sender)
                    }
                }
            }
            try await group.waitForAll()
        }
        let outcome = try await Self.check(chat)
        #expect(outcome.disagreements == [])
        #expect(try await chat.json("/chats/g1/lastMessage/id") == #""s124c3""#)
        #expect(try await chat.json("/userChats/bob/g1/unread") == "75")
    }

    @Test func everyCorruptionIsReportedWithItsPath() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await Self.activity(chat)
        try await chat.update(
            "/",
            [
                ("unreadTotals/alice", "7"),
                ("chats/g1/lastMessage/id", #""m2""#),
                ("userChats/carol/p1", #"{"unread":0,"name":"Alice"}"#),
                ("userChats/alice/g1/name", #""Old name""#),
                ("userChats/bob/p1/lastMessageAt", "5"),
                ("userChats/carol/g1/unread", #""many""#),
            ]
        )
        let outcome = try await Self.check(chat)
        let t = "1700000000000"
        #expect(
            outcome.disagreements == [
                #"chats/g1/lastMessage is {id: "m2", sender: "carol", sentAt: \#(t), text: "hi"}, but the newest message is m1 ({id: "m1", sender: "carol", sentAt: \#(t), text: "hi"})"#,
                #"userChats/alice/g1/name is "Old name", not the group's name "Hikers""#,
                "userChats/bob/p1/lastMessageAt is 5, before the newest message m4 sent at \(t)",
                "unreadTotals/alice is 7, but the unread counters of userChats/alice add up to 2",
                #"userChats/carol/g1/unread is "many", not a whole number ≥ 0"#,
                "userChats/carol/p1 is an entry of a chat carol is not a member of",
                "unreadTotals/carol is 1, but the unread counters of userChats/carol add up to 0",
            ]
        )
    }
}
