import Foundation
import HearthTestSupport
import Testing

/// `hearth chat check` as a process, over data directories loaded with `hearth import`.
struct ChatCheckCommandTests {
    /// A group of alice and bob with two messages from alice, as the message trigger leaves it.
    static let consistent = #"""
        {"chats": {"g1": {"type": "group", "name": "Pals",
                          "lastMessage": {"id": "m2", "sender": "alice", "sentAt": 20, "text": "two"}}},
         "members": {"g1": {"alice": {"role": "owner"}, "bob": {"role": "member"}}},
         "messages": {"g1": {"m1": {"sender": "alice", "kind": "text", "text": "one", "sentAt": 10},
                             "m2": {"sender": "alice", "kind": "text", "text": "two", "sentAt": 20}}},
         "userChats": {"alice": {"g1": {"unread": 0, "lastMessageAt": 20, "name": "Pals"}},
                       "bob": {"g1": {"unread": 2, "lastMessageAt": 20, "name": "Pals"}}},
         "unreadTotals": {"bob": 2}}
        """#

    static func check(_ json: String, ns: String = "default") async throws -> HearthProcess.Result {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = directory.appending("chat.json")
        try json.write(to: input, atomically: true, encoding: .utf8)
        let imported = try await HearthProcess.run(
            ["import", input.path, "--data", "data", "--ns", ns],
            directory: directory.url
        )
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        return try await HearthProcess.run(["chat", "check", "--data", "data", "--ns", ns], directory: directory.url)
    }

    @Test func aConsistentChatPassesWithExit0() async throws {
        let result = try await Self.check(Self.consistent, ns: "chat")
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stdout.contains("chat check of 'chat': 1 chats, 2 users: no disagreement"), "\(result.stdout)")
    }

    @Test func aCorruptedChatListsEachDisagreementAndExits1() async throws {
        let corrupted = Self.consistent
            .replacingOccurrences(of: #""unreadTotals": {"bob": 2}"#, with: #""unreadTotals": {"bob": 3}"#)
            .replacingOccurrences(
                of: #""id": "m2", "sender": "alice", "sentAt": 20, "text": "two""#,
                with: #""id": "m1""#
            )
        let result = try await Self.check(corrupted)
        #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                #"chats/g1/lastMessage is {id: "m1"}, but the newest message is m2 ({id: "m2", sender: "alice", sentAt: 20, text: "two"})"#,
                "unreadTotals/bob is 3, but the unread counters of userChats/bob add up to 2",
                "chat check of 'default': 1 chats, 2 users: 2 disagreement(s)",
            ]
        )
    }

    @Test func aMissingDataDirectoryIsAClearError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await HearthProcess.run(["chat", "check", "--data", "nowhere"], directory: directory.url)
        #expect(result.status != 0)
        #expect(result.stderr.contains("There is no Hearth data directory at 'nowhere'"), "\(result.stderr)")
    }
}
