import HearthChat
import HearthDatabase
import Testing

/// `hearth chat check` on presence: entries as the server writes them pass; an entry left
/// `online` in data at rest, and malformed ones, are reported with their path.
struct ChatPresenceCheckTests {
    static func disagreements(_ chat: ChatStore) async throws -> [String] {
        try await chat.ns.read { ChatConsistencyCheck(snapshot: NamespaceSnapshot(reader: $0)).run() }.disagreements
    }

    @Test func offlineEntriesAsTheServerWritesThemPass() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await chat.set(
            "/presence",
            #"{"ada": {"state": "offline", "lastChanged": 1700000000000}, "bob": {"state": "offline", "lastChanged": 1}}"#
        )
        #expect(try await Self.disagreements(chat) == [])
    }

    @Test func onlineInDataAtRestAndMalformedEntriesAreReported() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await chat.set(
            "/presence",
            #"""
            {"ada": {"state": "online", "lastChanged": 5},
             "bob": {"state": "away", "lastChanged": "yesterday"},
             "cy": {"state": "offline", "lastChanged": 5, "device": "phone"},
             "dee": true}
            """#
        )
        #expect(
            try await Self.disagreements(chat) == [
                "presence/ada/state is \"online\" with no server running: left by a server that did not stop "
                    + "cleanly (its next start sets it offline)",
                "presence/bob/state is \"away\", not \"online\" or \"offline\"",
                "presence/bob/lastChanged is \"yesterday\", not a number",
                "presence/cy/device is not a presence field (only state and lastChanged)",
                "presence/dee is true, not {state, lastChanged}",
            ]
        )
    }
}
