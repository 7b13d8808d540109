import Foundation
import HearthCore
import HearthDatabase
import HearthPush
import HearthPushFakes
import HearthStore
import HearthTestSupport
import Logging
import NIOPosix
import Testing

@testable import HearthChat

/// The queue's start after a crash: the push service hears commits before its queue has loaded
/// what the last run left (`ChatPushService.run` registers first, so that no commit falls
/// between), and a commit heard that early must not be planned before that load.
@Suite(.timeLimit(.minutes(1))) struct PushQueueStartTests {
    @Test func aCommitHeardBeforeTheStartIsPlannedAfterThePushesTheLastRunLeft() async throws {
        let directory = try TemporaryDirectory(prefix: "hearth-push-start")
        defer { directory.remove() }
        let store = try Store.open(directory: directory.path)
        defer { store.close() }
        let database = Database(
            store: store,
            rulesFiles: RulesFiles(defaultRulesFile: directory.path + "/rules.json"),
            logger: Logger(label: "hearth.test")
        )
        let engine = try await database.engine(for: "default")
        let device = try TreeParser.parse(#"{"token":"bob-phone","platform":"fcm","updatedAt":1}"#, at: .root)
        _ = try await engine.writeAsServer(Write(.set(DataPath("devices", "bob", "phone"), device)))
        // What a killed run left: Bob's phone's push of m1 (not yet accepted), and the intent
        // of m2, committed after it.
        let now = Date().timeIntervalSince1970 * 1000
        let left = PlannedPush(
            id: "default:1.0.0",
            uid: "bob",
            deviceId: "phone",
            token: "bob-phone",
            platform: "fcm",
            title: "Team",
            body: "one",
            badge: 1,
            chatId: "c1",
            messageId: "m1",
            callId: nil,
            createdAt: now
        )
        let intent = PushIntent(
            chatId: "c1",
            subject: .message(id: "m2"),
            sender: "alice",
            recipients: ["bob"],
            body: "two",
            createdAt: now
        )
        try engine.changeJobs([
            .put(
                queue: PushQueues.deliveries,
                key: PlannedPush.deviceKey(uid: "bob", deviceId: "phone") + JobKey.committed(sequence: 1, index: 0),
                payload: left.encoded()
            ),
            .put(queue: PushQueues.intents, key: JobKey.committed(sequence: 2, index: 0), payload: intent.encoded()),
        ])
        let receiver = try await WebhookReceiver.start(secret: TestServer.adminSecret)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let client = PushHTTPConfiguration().makeClient(on: group)
        let queue = PushDeliveryQueue(
            namespace: "default",
            loop: group.next(),
            engine: engine,
            provider: try WebhookProvider(url: receiver.url, secret: TestServer.adminSecret, httpClient: client),
            settings: PushDeliveryQueue.Settings(),
            logger: Logger(label: "hearth.test")
        )
        // A commit heard before the start; its planning, had it run now, would make m2 Bob's
        // phone's first push and leave m1 behind it for good.
        queue.jobsQueued()
        try await Task.sleep(for: .milliseconds(300))
        try await queue.start()
        try await ChatServer.waitFor("both pushes") { receiver.accepted.count >= 2 }
        #expect(receiver.accepted.compactMap { $0.json?.data["messageId"] } == ["m1", "m2"])
        // Counted down once each push's removal committed (just after the receiver's answer).
        try await ChatServer.waitFor("an empty queue", seconds: 5) { await queue.currentFigures().queued == 0 }
        #expect(receiver.duplicates.isEmpty)
        await queue.stop()
        try await client.shutdown()
        try await group.shutdownGracefully()
        await receiver.shutdown()
    }
}
