import Foundation
import HearthTestSupport
import Testing

/// `hearth chat check` over blocks: a block and its marker pass; a block without its marker is
/// reported and exits 1.
struct ChatCheckBlocksCommandTests {
    /// The private chat id of alice and bob (`CreateChat.chatID`, pinned in `BlockCheckTests`).
    static let aliceAndBob = "p141a4cd242b67e82edf4a78bb418d40a"

    static func data(marker: Bool) -> String {
        let markers = marker ? #", "blockedSenders": {"\#(aliceAndBob)": {"bob": "alice"}}"# : ""
        return #"""
            {"users": {"alice": {"displayName": "Alice", "createdAt": 1}, "bob": {"displayName": "Bob", "createdAt": 1}},
             "blocks": {"alice": {"bob": true}}\#(markers)}
            """#
    }

    @Test func aBlockWithItsMarkerPasses() async throws {
        let result = try await ChatCheckCommandTests.check(Self.data(marker: true))
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
    }

    @Test func aBlockWithoutItsMarkerIsReportedAndExits1() async throws {
        let result = try await ChatCheckCommandTests.check(Self.data(marker: false))
        #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").map(String.init) == [
                #"blockedSenders/\#(Self.aliceAndBob)/bob is absent, but blocks/alice/bob calls for "alice""#,
                "chat check of 'default': 0 chats, 0 users: 1 disagreement(s)",
            ]
        )
    }
}
