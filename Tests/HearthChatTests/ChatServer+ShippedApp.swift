import Foundation
import HearthChat
import HearthServer
import HearthTestSupport

/// The chat app as `hearth serve` runs it: the shipped rules, the callables and the message
/// trigger, with users who signed up and wrote their own profiles, as clients do.
extension ChatServer {
    /// The shipped rules file, `rules/database.rules.json` of the package.
    static let shippedRules = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("rules/database.rules.json")

    /// A server whose `default` namespace has the shipped rules, the chat callables and the
    /// message trigger. Each user signs up and writes their own profile over REST with their
    /// ID token (`displayName` = the name, `phoneNumber`, `createdAt` the server timestamp),
    /// which the shipped rules must accept.
    static func withShippedApp(
        users: [(name: String, phoneNumber: String)],
        run body: (ChatServer) async throws -> Void
    ) async throws {
        let rules = try String(contentsOf: shippedRules, encoding: .utf8)
        let phoneNumbers = Dictionary(uniqueKeysWithValues: users.map { ($0.name, $0.phoneNumber) })
        try await with(
            users: users.map(\.name),
            prepare: { configuration in installShippedApp(rules: rules, in: &configuration) },
            profile: { user, token, accounts in
                try await writeOwnProfile(user, token: token, phoneNumber: phoneNumbers[user.name], on: accounts.server)
            },
            run: body
        )
    }

    /// The shipped `rules` (its text) in `configuration`'s rules file, and the chat callables
    /// and message trigger in `default`.
    static func installShippedApp(rules: String, in configuration: inout HearthServerConfiguration) {
        try? rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
        try? ChatApp.register(in: &configuration.callables, namespaces: ["default"])
        try? ChatApp.register(in: &configuration.triggers, namespaces: ["default"])
    }

    /// `user` writes their own profile over REST with their ID token, as a client does:
    /// `displayName` = the name, `phoneNumber` when given, `createdAt` the server timestamp.
    static func writeOwnProfile(
        _ user: (name: String, uid: String),
        token: String,
        phoneNumber: String? = nil,
        on server: TestServer
    ) async throws {
        let phone = phoneNumber.map { #","phoneNumber":"\#($0)""# } ?? ""
        let reply = try await server.send(
            "PUT",
            "/users/\(user.uid).json?auth=\(token)",
            text: #"{"displayName":"\#(user.name)"\#(phone),"createdAt":{".sv":"timestamp"}}"#
        )
        guard reply.status == 200 else {
            throw TestFailure("\(user.name)'s own profile write answered \(reply.status): \(reply.body)")
        }
    }

    /// `GET path` as `name` (with their ID token, under the rules).
    func read(_ path: String, as name: String) async throws -> TestServer.Reply {
        try await server.send("GET", "\(path).json?auth=\(users[name]!.token)")
    }

    /// A message `name` posts into `chatId` by REST push, as a client does (under the rules,
    /// `sentAt` the server timestamp). Returns the message id the server chose.
    func post(_ text: String, as name: String, in chatId: String) async throws -> String {
        let reply = try await server.send(
            "POST",
            "/messages/\(chatId).json?auth=\(users[name]!.token)",
            text: ChatServer.message(text, from: uid(name))
        )
        let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        guard reply.status == 200, let id = object?["name"] as? String else {
            throw TestFailure("\(name)'s message push answered \(reply.status): \(reply.body)")
        }
        return id
    }

    /// A text message as a client writes it.
    static func message(_ text: String, from uid: String) -> String {
        #"{"sender":"\#(uid)","kind":"text","text":"\#(text)","sentAt":{".sv":"timestamp"}}"#
    }
}
