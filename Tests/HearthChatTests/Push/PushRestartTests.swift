import Foundation
import HearthChat
import HearthPush
import HearthPushFakes
import HearthServer
import HearthTestSupport
import Testing

/// The push queue survives a restart: pushes that could not be delivered before the server
/// stopped are delivered by the next start, once each.
@Suite(.timeLimit(.minutes(3))) struct PushRestartTests {
    /// A server on `directory` with the chat app and its pushes to `receiver` (no accounts:
    /// the admin writes the chat).
    private static func start(_ directory: URL, receiver: WebhookReceiver) async throws -> RunningServer {
        var configuration = HearthServerConfiguration.testing(in: directory)
        try ChatApp.register(in: &configuration.triggers, namespaces: ["default"], pushes: true)
        var settings = ChatPushService.Settings()
        settings.retry = PushRetryPolicy(firstDelay: .milliseconds(100), maximumDelay: .milliseconds(200))
        let url = receiver.url
        let service = ChatPushService(provider: "webhook", namespaces: ["default"], settings: settings) { client in
            try WebhookProvider(url: url, secret: TestServer.adminSecret, httpClient: client)
        }
        configuration.services = [service]
        configuration.pushStatus = service
        return try await TestServer.start(configuration, in: directory).running
    }

    @Test func pushesLeftQueuedAtAStopAreDeliveredByTheNextStart() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-push-restart")
        defer { temporary.remove() }
        let receiver = try await WebhookReceiver.start(secret: TestServer.adminSecret)
        // Refused until the restart: every attempt before it is answered 503.
        receiver.answerNext(Array(repeating: .status(503, retryAfter: nil), count: 10_000))
        var running = try await Self.start(temporary.url, receiver: receiver)
        var server = TestServer(port: running.port, directory: temporary.url)
        try await server.put(
            "/",
            #"{"chats":{"c1":{"type":"group","name":"Team"}},"members":{"c1":{"a":{"role":"owner"},"b":{"role":"member"}}},"devices":{"b":{"phone":{"token":"b-phone","platform":"fcm","updatedAt":1}}}}"#
        )
        for index in 1...3 {
            try await server.put(
                "/messages/c1/m\(index)",
                #"{"sender":"a","kind":"text","text":"t\#(index)","sentAt":1}"#
            )
        }
        try await ChatServer.waitFor("attempts refused") { receiver.deliveries.count >= 2 }
        await running.shutdown()
        #expect(receiver.accepted.isEmpty)
        await receiver.shutdown()
        // The next start delivers to a receiver that accepts (the queue holds the pushes).
        let accepting = try await WebhookReceiver.start(secret: TestServer.adminSecret)
        running = try await Self.start(temporary.url, receiver: accepting)
        server = TestServer(port: running.port, directory: temporary.url)
        try await ChatServer.waitFor("three pushes") { accepting.accepted.count == 3 }
        #expect(accepting.accepted.compactMap { $0.json?.data["messageId"] } == ["m1", "m2", "m3"])
        #expect(accepting.duplicates.isEmpty)
        #expect(accepting.violations.isEmpty)
        await running.shutdown()
        await accepting.shutdown()
    }
}
