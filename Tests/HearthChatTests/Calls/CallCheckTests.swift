import HearthDatabase
import Testing

@testable import HearthChat

/// `hearth chat check` on calls: markers and ringing calls agree, and no call in data at rest
/// is still ringing past its ring timeout.
struct CallCheckTests {
    static func disagreements(_ chat: ChatStore, now: Double) async throws -> [String] {
        try await chat.ns.read {
            ChatConsistencyCheck(snapshot: NamespaceSnapshot(reader: $0)).callDisagreements(now: now)
        }
    }

    @Test func callsAsTheServerWritesThemPass() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await chat.set(
            "/calls",
            #"""
            {"k1": {"chatId": "c1", "caller": "ada", "callee": "bob", "kind": "audio", "state": "ringing", "createdAt": 1000, "offer": "v=0"},
             "k2": {"chatId": "c1", "caller": "ada", "callee": "bob", "kind": "audio", "state": "ended", "createdAt": 1, "answeredAt": 2, "endedAt": 3, "offer": "v=0", "answer": "v=0"}}
            """#
        )
        try await chat.set("/ringingCalls", #"{"c1": "k1"}"#)
        #expect(try await Self.disagreements(chat, now: 1000 + 44_999) == [])
        // The whole check runs it too (at the wall clock: k1 is long overdue then).
        let outcome = try await chat.ns.read { ChatConsistencyCheck(snapshot: NamespaceSnapshot(reader: $0)).run() }
        #expect(outcome.disagreements.contains { $0.hasPrefix("calls/k1 is still ringing") })
    }

    @Test func strayMarkersUnmarkedAndStuckCallsAreReported() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await chat.set(
            "/calls",
            #"""
            {"k1": {"chatId": "c1", "caller": "ada", "kind": "audio", "state": "ringing", "createdAt": 1000, "offer": "v=0"},
             "k2": {"chatId": "c2", "caller": "ada", "kind": "audio", "state": "missed", "createdAt": 1, "endedAt": 3, "offer": "v=0"}}
            """#
        )
        try await chat.set("/ringingCalls", #"{"c2": "k2", "c3": "gone"}"#)
        #expect(
            try await Self.disagreements(chat, now: 1000 + 45_000) == [
                "ringingCalls/c2 is \"k2\", not the id of a ringing call of the chat c2 (it keeps the chat from "
                    + "ringing; the missed-call timer removes it)",
                "ringingCalls/c3 is \"gone\", not the id of a ringing call of the chat c3 (it keeps the chat from "
                    + "ringing; the missed-call timer removes it)",
                "calls/k1 rings in the chat c1, but ringingCalls/c1 does not name it",
                "calls/k1 is still ringing 45 s after its createdAt: stuck (the server marks it missed at its next start)",
            ]
        )
    }
}
