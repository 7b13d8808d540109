import HearthCore
import HearthDatabase
import HearthStore
import Testing

@testable import HearthChat

/// `hearth chat check` on blocks: blocks naming users without a profile, and markers that
/// disagree with `blocks` either way, each reported with its path.
@Suite(.timeLimit(.minutes(3))) struct BlockCheckTests {
    static func disagreements(_ chat: ChatStore) async throws -> [String] {
        try await chat.ns.read { ChatConsistencyCheck(snapshot: NamespaceSnapshot(reader: $0)).checkBlocks() }
    }

    static func block(_ blocker: String, _ blocked: String) -> [(String, String)] {
        [
            ("blocks/\(blocker)/\(blocked)", "true"),
            ("blockedSenders/\(CreateChat.chatID(blocker, blocked))/\(blocked)", #""\#(blocker)""#),
        ]
    }

    /// The marker's chat id as the crash matrix (`load_blocks.private_chat_id`) and the CLI
    /// tests compute it.
    @Test func theMarkersChatIDIsThePrivateChatsID() {
        #expect(CreateChat.chatID("alice", "bob") == "p141a4cd242b67e82edf4a78bb418d40a")
        #expect(
            BlockList.marker("bob", "alice") == DataPath("blockedSenders", "p141a4cd242b67e82edf4a78bb418d40a", "alice")
        )
    }

    @Test func blocksWithTheirMarkersHaveNoDisagreement() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await chat.seedChats()
        try await chat.update("/", Self.block("alice", "bob") + Self.block("bob", "alice") + Self.block("carol", "bob"))
        #expect(try await Self.disagreements(chat) == [])
        let outcome = try await chat.ns.read { ChatConsistencyCheck(snapshot: NamespaceSnapshot(reader: $0)).run() }
        #expect(outcome.disagreements == [])
        #expect(try await ChatConsistencyCheck.lookupDisagreements(in: chat.ns) == [])
    }

    @Test func everyDisagreementIsReportedWithItsPath() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await chat.seedChats()
        let (ab, ac, bc) = (
            CreateChat.chatID("alice", "bob"), CreateChat.chatID("alice", "carol"), CreateChat.chatID("bob", "carol")
        )
        try await chat.update(
            "/",
            Self.block("alice", "ghost") + [
                // A block without its marker; one whose marker names someone else; one not `true`.
                ("blocks/alice/bob", "true"),
                ("blocks/bob/carol", "true"),
                ("blockedSenders/\(bc)/carol", #""alice""#),
                ("blocks/carol/alice", "1"),
                ("blockedSenders/\(ac)/alice", #""carol""#),
                // A marker without its block; one under the wrong chat.
                ("blockedSenders/\(ab)/alice", #""bob""#),
                ("blockedSenders/p0/dave", #""alice""#),
            ]
        )
        // Markers are listed in the order of their chat ids (hashes): compared as a set.
        #expect(
            Set(try await Self.disagreements(chat)) == [
                "blockedSenders/\(ab)/bob is absent, but blocks/alice/bob calls for \"alice\"",
                "blocks/alice/ghost names ghost, who has no profile (a deleted account's blocks go with it)",
                "blockedSenders/\(bc)/carol is \"alice\", but blocks/bob/carol calls for \"bob\"",
                "blocks/carol/alice is 1, not true",
                "blockedSenders/p0/dave is \"alice\", not the uid of a user whose private chat with dave is p0",
                "blockedSenders/\(ab)/alice says bob blocks alice, but blocks/bob/alice is absent",
                "blockedSenders/\(bc)/carol is \"alice\", not the uid of a user whose private chat with carol is \(bc)",
            ]
        )
    }
}
