import Foundation
import HearthChat
import HearthServer
import HearthTestSupport

/// The chat app with calls, as `hearth serve` runs it: the shipped rules, the callables, the
/// message trigger and the missed-call timer (`ChatApp.services`), here with a ring timeout
/// short enough to wait for.
extension ChatServer {
    /// A server like `withShippedApp`'s (Alice, Bob, Carol and Dave sign up and write their own
    /// profiles), whose calls ring `ringTimeout` before they are missed.
    static func withCalls(
        ringTimeout: Duration = .seconds(45),
        run body: (ChatServer) async throws -> Void
    ) async throws {
        let rules = try String(contentsOf: shippedRules, encoding: .utf8)
        let calls = CallConfiguration(ringTimeout: ringTimeout, checkInterval: .milliseconds(100))
        try await with(
            users: ["Alice", "Bob", "Carol", "Dave"],
            prepare: { configuration in
                installShippedApp(rules: rules, in: &configuration)
                configuration.services += ChatApp.services(namespaces: ["default"], calls: calls)
            },
            profile: { user, token, accounts in try await writeOwnProfile(user, token: token, on: accounts.server) },
            run: body
        )
    }

    /// `name` starts a call in `chatId` (an SDP offer of a few bytes); returns its id.
    func startCall(as name: String, in chatId: String, kind: String = "audio") async throws -> String {
        let reply = try await call(
            "startCall",
            as: name,
            data: #"{"chatId":"\#(chatId)","kind":"\#(kind)","offer":"v=0 offer of \#(name)"}"#
        )
        let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        guard reply.status == 200, let id = (object?["result"] as? [String: Any])?["callId"] as? String else {
            throw TestFailure("startCall answered \(reply.status): \(reply.body)")
        }
        return id
    }

    /// Calls `function` (`answerCall`, `declineCall`, `endCall`) on `callId` as `name`.
    func onCall(_ function: String, _ callId: String, as name: String) async throws -> TestServer.Reply {
        let data =
            function == "answerCall"
            ? #"{"callId":"\#(callId)","answer":"v=0 answer of \#(name)"}"# : #"{"callId":"\#(callId)"}"#
        return try await call(function, as: name, data: data)
    }

    /// `calls/$callId` (admin read).
    func callRecord(_ callId: String) async throws -> [String: Any] {
        try await object("/calls/\(callId)")
    }

    /// The messages of `chatId` whose `kind` is `call` (admin read).
    func callMessages(in chatId: String) async throws -> [[String: Any]] {
        let messages = try await object("/messages/\(chatId)")
        return messages.keys.sorted().compactMap { key in
            guard let message = messages[key] as? [String: Any], message["kind"] as? String == "call" else {
                return nil
            }
            return message
        }
    }
}
