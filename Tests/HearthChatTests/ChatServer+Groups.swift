import Foundation
import HearthTestSupport
import Testing

/// Helpers for the tests of the callables that act on existing chats.
extension ChatServer {
    /// A group Alice owns with `others` (display names), created by `createGroup`.
    func group(_ name: String = "Hikers", with others: [String] = ["Bob", "Carol"]) async throws -> String {
        let participants = others.map { #""\#(uid($0))""# }.joined(separator: ",")
        let data = #"{"name":"\#(name)","participants":[\#(participants)]}"#
        return try ChatServer.chatID(try await call("createGroup", as: "Alice", data: data))
    }

    /// The private chat of `a` and `b`, created by `createChat`.
    func privateChat(_ a: String, _ b: String) async throws -> String {
        try ChatServer.chatID(try await call("createChat", as: a, data: #"{"participant":"\#(uid(b))"}"#))
    }

    /// `name` leaves `chatId` (`removeMember` of themselves); expects it to succeed.
    func leave(_ name: String, _ chatId: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let reply = try await call("removeMember", as: name, data: #"{"chatId":"\#(chatId)","uid":"\#(uid(name))"}"#)
        #expect(reply.status == 200, "\(name) leaving: \(reply.body)", sourceLocation: sourceLocation)
    }

    /// A message from `sender` in `chatId` with the derived state the message trigger commits
    /// with it: one admin multi-path write that adds it and increments `unread` and
    /// `unreadTotals` of every recipient (the trigger is another part's; these tests need only
    /// its counters). Returns the message id.
    @discardableResult
    func deliver(
        from sender: String,
        in chatId: String,
        to recipients: [String],
        id: String? = nil
    ) async throws
        -> String
    {
        let messageId = id ?? "m" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        var paths = [
            #""messages/\#(chatId)/\#(messageId)":{"sender":"\#(uid(sender))","text":"hi","kind":"text","sentAt":{".sv":"timestamp"}}"#
        ]
        for name in recipients {
            paths.append(#""userChats/\#(uid(name))/\#(chatId)/unread":{".sv":{"increment":1}}"#)
            paths.append(#""unreadTotals/\#(uid(name))":{".sv":{"increment":1}}"#)
        }
        let reply = try await server.send(
            "PATCH",
            TestServer.url("/", admin: true),
            text: "{" + paths.joined(separator: ",") + "}"
        )
        guard reply.status == 200 else { throw TestFailure("deliver answered \(reply.status): \(reply.body)") }
        return messageId
    }

    /// The `result` of a successful call, as canonical JSON.
    static func result(_ reply: TestServer.Reply) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        guard reply.status == 200, let result = object?["result"] else {
            throw TestFailure("no result: \(reply.status) \(reply.body)")
        }
        return canonicalJSON(result)
    }

    /// The number at `path` (admin read; null: nil).
    func number(_ path: String) async throws -> Double? {
        Double(try await server.get(path))
    }

    /// Each case is refused with its status, code and a message containing its text, and the
    /// database is unchanged afterwards.
    func expectRefusals(
        _ function: String,
        _ cases: [(caller: String?, data: String, status: Int, code: String, message: String)],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = try await server.get("/")
        for (caller, data, status, code, message) in cases {
            let reply = try await call(function, as: caller, data: data)
            let context = Comment(rawValue: "\(function) \(data.prefix(100)): \(reply.body)")
            #expect(reply.status == status, context, sourceLocation: sourceLocation)
            #expect(reply.body.contains(#""status":"\#(code)""#), context, sourceLocation: sourceLocation)
            #expect(reply.body.contains(message), context, sourceLocation: sourceLocation)
        }
        #expect(
            try await server.get("/") == before,
            "\(function)'s refusals wrote nothing",
            sourceLocation: sourceLocation
        )
    }
}
