import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

/// What the conversation-request tests do as clients of the shipped app.
extension ChatServer {
    /// Alice, Bob, Carol and Dave with phone numbers, under the shipped rules, callables and
    /// triggers.
    static func withShippedFriends(run body: (ChatServer) async throws -> Void) async throws {
        try await withShippedApp(
            users: [
                ("Alice", "+14155550100"), ("Bob", "+14155550101"), ("Carol", "+14155550102"),
                ("Dave", "+14155550103"),
            ],
            run: body
        )
    }

    /// The private chat `caller` starts with `other` by `createChat`.
    func startChat(_ caller: String, with other: String) async throws -> String {
        try ChatServer.chatID(try await call("createChat", as: caller, data: #"{"participant":"\#(uid(other))"}"#))
    }

    /// `owner` adds `other` to their contacts by REST, under the rules; returns the status.
    @discardableResult
    func addContact(_ owner: String, _ other: String, favorite: Bool = false) async throws -> Int {
        try await server.send(
            "PUT",
            "/contacts/\(uid(owner))/\(uid(other)).json?auth=\(users[owner]!.token)",
            text: #"{"addedAt":{".sv":"timestamp"},"favorite":\#(favorite)}"#
        ).status
    }

    /// `name`'s chat-list entry of `chatId` (admin read), compact with keys in order, without
    /// the times that vary (`lastMessageAt`, `lastReadAt`).
    func entry(of name: String, _ chatId: String) async throws -> String {
        var entry = try await object("/userChats/\(uid(name))/\(chatId)")
        entry["lastMessageAt"] = nil
        entry["lastReadAt"] = nil
        return canonicalJSON(entry)
    }

    /// Whether `name`'s entry of `chatId` carries the request flag (admin read).
    func hasRequest(_ name: String, _ chatId: String) async throws -> Bool {
        try await server.get("/userChats/\(uid(name))/\(chatId)/request") == "true"
    }
}
