import AsyncHTTPClient
import Foundation
import HearthChat
import HearthPush
import HearthPushFakes
import HearthServer
import HearthTestSupport

extension ChatServer {
    /// The shipped chat app with push notifications on, delivered to `receiver` (the webhook),
    /// with `settings` for the push service.
    static func withPushes(
        to receiver: WebhookReceiver,
        users: [String] = ["Alice", "Bob", "Carol", "Dave"],
        settings: ChatPushService.Settings = ChatPushService.Settings(),
        run body: (ChatServer) async throws -> Void
    ) async throws {
        let url = receiver.url
        try await withPushes(provider: "webhook", users: users, settings: settings, run: body) { client in
            try WebhookProvider(url: url, secret: TestServer.adminSecret, httpClient: client)
        }
    }

    /// The shipped chat app with push notifications on, delivered through FCM (`fake`).
    static func withPushes(
        to fake: FakeFCM,
        users: [String] = ["Alice", "Bob", "Carol", "Dave"],
        run body: (ChatServer) async throws -> Void
    ) async throws {
        let file = fake.serviceAccountFile
        let endpoint = fake.endpoint
        try await withPushes(provider: "fcm", users: users, settings: ChatPushService.Settings(), run: body) {
            client in
            try FCMProvider(serviceAccountFile: file, endpoint: endpoint, httpClient: client)
        }
    }

    static func withPushes(
        provider: String,
        users: [String],
        settings: ChatPushService.Settings,
        run body: (ChatServer) async throws -> Void,
        makeProvider: @escaping @Sendable (HTTPClient) throws -> any PushProvider
    ) async throws {
        let rules = try String(contentsOf: shippedRules, encoding: .utf8)
        try await with(
            users: users,
            prepare: { configuration in
                try? rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
                try? ChatApp.register(in: &configuration.callables, namespaces: ["default"])
                try? ChatApp.register(in: &configuration.triggers, namespaces: ["default"], pushes: true)
                let service = ChatPushService(
                    provider: provider,
                    namespaces: ["default"],
                    settings: settings,
                    makeProvider: makeProvider
                )
                configuration.services.append(service)
                configuration.pushStatus = service
                configuration.presence.namespaces = ["default"]
            },
            profile: { user, token, accounts in
                let reply = try await accounts.server.send(
                    "PUT",
                    "/users/\(user.uid).json?auth=\(token)",
                    text: #"{"displayName":"\#(user.name)","createdAt":{".sv":"timestamp"}}"#
                )
                guard reply.status == 200 else {
                    throw TestFailure("\(user.name)'s own profile write answered \(reply.status): \(reply.body)")
                }
            },
            run: body
        )
    }

    /// Registers a device of `name` as their app does (their own write under the shipped rules).
    func registerDevice(_ deviceId: String, token: String, platform: String = "fcm", for name: String) async throws {
        let reply = try await server.send(
            "PUT",
            "/devices/\(uid(name))/\(deviceId).json?auth=\(users[name]!.token)",
            text: #"{"token":"\#(token)","platform":"\#(platform)","updatedAt":{".sv":"timestamp"}}"#
        )
        guard reply.status == 200 else { throw TestFailure("the device write answered \(reply.status): \(reply.body)") }
    }

    /// The push queue's figures of `default` (`GET /.settings/push.json`).
    func pushFigures() async throws -> [String: Any] {
        let reply = try await server.send("GET", TestServer.url("/.settings/push", admin: true))
        guard reply.status == 200,
            let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any],
            let namespaces = object["namespaces"] as? [String: Any],
            let figures = namespaces["default"] as? [String: Any]
        else { throw TestFailure("push.json answered \(reply.status): \(reply.body)") }
        return figures
    }

    /// The push queue's figures once `settled` holds for them (polling, bounded by `seconds`):
    /// a webhook's receiver sees a push before the queue has read its answer and committed the
    /// push done, so figures read right after a delivery may still count it queued.
    func pushFigures(
        settled what: String,
        seconds: Double = 10,
        when settled: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        var figures = try await pushFigures()
        try await Self.waitFor(what, seconds: seconds) {
            figures = try await pushFigures()
            return settled(figures)
        }
        return figures
    }

    /// Waits until `condition` holds (polling, bounded by `seconds`).
    static func waitFor(
        _ what: String,
        seconds: Double = 10,
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try await !condition() {
            guard Date() < deadline else { throw TestFailure("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
