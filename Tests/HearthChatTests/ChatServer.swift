import Foundation
import HearthChat
import HearthFunctions
import HearthServer
import HearthTestSupport

/// A real server running the chat callables in `default` and `chat2`, with signed-up users
/// whose profiles exist (registered users, as the contract defines them). Without rules or
/// triggers: profiles are written as the admin; `withShippedApp` runs the app as shipped.
struct ChatServer: Sendable {
    let accounts: AccountsClient
    /// uid and ID token by display name.
    let users: [String: (uid: String, token: String)]

    var server: TestServer { accounts.server }

    /// - Parameter quota: the contact-lookup quota of `matchContacts`.
    static func with(
        users names: [String] = ["Alice", "Bob", "Carol", "Dave"],
        quota: ContactLookupQuota = ContactLookupQuota(),
        run body: (ChatServer) async throws -> Void
    ) async throws {
        try await with(
            users: names,
            prepare: { configuration in
                // The callables and the lookup indexes they read; not the message trigger:
                // these tests stand in for it where they need counters.
                try? ChatApp.register(
                    in: &configuration.callables,
                    namespaces: ["default", "chat2"],
                    quota: quota
                )
                try? ChatApp.registerLookups(in: &configuration.triggers, namespaces: ["default", "chat2"])
            },
            profile: { user, _, accounts in
                try await accounts.server.put("/users/\(user.uid)", #"{"displayName":"\#(user.name)","createdAt":1}"#)
            },
            run: body
        )
    }

    /// Starts a server prepared by `prepare`, signs up `names` (`name@example.com`), writes
    /// each one's profile with `profile` (given the user, their ID token and the client) and
    /// runs `body`.
    static func with(
        users names: [String],
        prepare: @escaping (inout HearthServerConfiguration) -> Void,
        profile: (_ user: (name: String, uid: String), _ token: String, AccountsClient) async throws -> Void,
        run body: (ChatServer) async throws -> Void
    ) async throws {
        try await AccountsClient.withServer(prepare: prepare) { accounts in
            var users: [String: (uid: String, token: String)] = [:]
            for name in names {
                let answer = try await accounts.signUp("\(name.lowercased())@example.com")
                let uid = answer.string("localId")
                users[name] = (uid, answer.string("idToken"))
                try await profile((name, uid), answer.string("idToken"), accounts)
            }
            try await body(ChatServer(accounts: accounts, users: users))
        }
    }

    func uid(_ name: String) -> String { users[name]!.uid }

    /// Calls `function` as `name` (nil: no credential).
    func call(_ function: String, as name: String?, data: String, ns: String? = nil) async throws -> TestServer.Reply {
        var headers = [("Content-Type", "application/json")]
        if let name { headers.append(("Authorization", "Bearer \(users[name]!.token)")) }
        let target = "/functions/\(function)" + (ns.map { "?ns=\($0)" } ?? "")
        return try await server.send("POST", target, headers: headers, text: #"{"data":\#(data)}"#)
    }

    /// The `chatId` of a successful reply.
    static func chatID(_ reply: TestServer.Reply) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        guard reply.status == 200, let id = (object?["result"] as? [String: Any])?["chatId"] as? String else {
            throw TestFailure("no chatId: \(reply.status) \(reply.body)")
        }
        return id
    }

    /// The JSON object at `path` (admin read).
    func object(_ path: String) async throws -> [String: Any] {
        let text = try await server.get(path)
        return (try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) as? [String: Any])
            ?? [:]
    }
}
