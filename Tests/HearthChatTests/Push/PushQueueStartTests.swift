import AsyncHTTPClient
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
@Suite(.timeLimit(.minutes(3))) struct PushQueueStartTests {
    @Test func aCommitHeardBeforeTheStartIsPlannedAfterThePushesTheLastRunLeft() async throws {
        let directory = try TemporaryDirectory(prefix: "hearth-push-start")
        defer { directory.remove() }
        let store = try Store.open(directory: directory.path)
        defer { store.close() }
        let engine = try await Self.engine(on: store, in: directory, devices: ["bob": "bob-phone", "carol": "c"])
        // What a killed run left: m1 planned for Carol's phone (accepted and marked done) and
        // Bob's (not yet accepted), and the intent of m2, committed after it.
        let now = Date().timeIntervalSince1970 * 1000
        let left = PushContent(
            chatId: "c1",
            messageId: "m1",
            callId: nil,
            title: "Team",
            body: "one",
            createdAt: now
        )
        let leftKey = JobKey.committed(sequence: 1, index: 0)
        let planned = PlannedIntent(
            content: left,
            pushes: [
                .init(uid: "carol", deviceId: "phone", number: 0, badge: 1, tokenHash: PlannedIntent.hash(token: "c")),
                .init(
                    uid: "bob",
                    deviceId: "phone",
                    number: 1,
                    badge: 1,
                    tokenHash: PlannedIntent.hash(token: "bob-phone")
                ),
            ]
        )
        var done = PushDoneSet(count: 2)
        done.insert(0)
        let intent = PushIntent(
            chatId: "c1",
            subject: .message(id: "m2"),
            sender: "alice",
            recipients: ["bob"],
            body: "two",
            createdAt: now
        )
        try engine.changeJobs([
            .put(queue: PushQueues.planned, key: leftKey, payload: planned.encoded()),
            .put(queue: PushQueues.done, key: leftKey, payload: done.bytes),
            .put(queue: PushQueues.intents, key: JobKey.committed(sequence: 2, index: 0), payload: intent.encoded()),
        ])
        let delivery = try await Delivery.start(engine: engine)
        let (queue, receiver) = (delivery.queue, delivery.receiver)
        // A commit heard before the start; its planning, had it run now, would make m2 Bob's
        // phone's first push and leave m1 behind it for good.
        queue.jobsQueued()
        try await Task.sleep(for: .milliseconds(300))
        try await queue.start()
        try await ChatServer.waitFor("both pushes") { receiver.accepted.count >= 2 }
        #expect(receiver.accepted.compactMap { $0.json?.data["messageId"] } == ["m1", "m2"])
        #expect(receiver.accepted.compactMap { $0.json?.uid } == ["bob", "bob"])
        #expect(receiver.accepted.first?.json?.id == "default:1.0.1")
        // Counted down once each push's removal committed (just after the receiver's answer).
        try await ChatServer.waitFor("an empty queue", seconds: 5) { await queue.currentFigures().queued == 0 }
        #expect(receiver.duplicates.isEmpty)
        // Each planned intent went with its last push, its done set with it.
        #expect(try engine.jobCount(in: PushQueues.planned, limit: 10) == 0)
        #expect(try engine.jobCount(in: PushQueues.done, limit: 10) == 0)
        await delivery.stop()
    }

    /// A push an earlier version queued whole (its payload the webhook's body as JSON) is
    /// rewritten at the start as its entry and content, and delivered with the id it had.
    @Test func aPushQueuedWholeByAnEarlierVersionIsDeliveredWithItsId() async throws {
        let directory = try TemporaryDirectory(prefix: "hearth-push-legacy")
        defer { directory.remove() }
        let store = try Store.open(directory: directory.path)
        defer { store.close() }
        let engine = try await Self.engine(on: store, in: directory, devices: ["bob": "bob-phone"])
        let now = Int(Date().timeIntervalSince1970 * 1000)
        let legacy =
            #"{"id":"default:7.0.3","uid":"bob","deviceId":"phone","token":"bob-phone","platform":"fcm","#
            + #""title":"Team","body":"old","badge":4,"data":{"chatId":"c1","messageId":"m0"},"createdAt":\#(now)}"#
        try engine.changeJobs([
            .put(
                queue: PushQueues.legacyDeliveries,
                key: PushDeviceKey.of(uid: "bob", deviceId: "phone") + JobKey.committed(sequence: 7, index: 0),
                payload: Array(legacy.utf8)
            )
        ])
        let delivery = try await Delivery.start(engine: engine)
        try await delivery.queue.start()
        try await ChatServer.waitFor("the push") { delivery.receiver.accepted.count >= 1 }
        let sent = try #require(delivery.receiver.accepted.first?.json)
        #expect(sent.id == "default:7.0.3")
        #expect(sent.title == "Team" && sent.body == "old" && sent.badge == 4)
        #expect(sent.data["messageId"] == "m0")
        try await ChatServer.waitFor("an empty queue", seconds: 5) {
            await delivery.queue.currentFigures().queued == 0
        }
        #expect(try engine.jobCount(in: PushQueues.legacyDeliveries, limit: 10) == 0)
        #expect(try engine.jobCount(in: PushQueues.planned, limit: 10) == 0)
        await delivery.stop()
    }

    /// The default namespace's engine on `store`, each user's phone registered with its token.
    private static func engine(
        on store: Store,
        in directory: TemporaryDirectory,
        devices: [String: String]
    ) async throws -> NamespaceEngine {
        let database = Database(
            store: store,
            rulesFiles: RulesFiles(defaultRulesFile: directory.path + "/rules.json"),
            logger: Logger(label: "hearth.test")
        )
        let engine = try await database.engine(for: "default")
        for (uid, token) in devices {
            let device = try TreeParser.parse(#"{"token":"\#(token)","platform":"fcm","updatedAt":1}"#, at: .root)
            _ = try await engine.writeAsServer(Write(.set(DataPath("devices", uid, "phone"), device)))
        }
        return engine
    }
}

/// A queue delivering through the webhook to a receiver, on an event loop of its own.
private struct Delivery {
    let queue: PushDeliveryQueue
    let receiver: WebhookReceiver
    let group: MultiThreadedEventLoopGroup
    let client: HTTPClient

    static func start(engine: NamespaceEngine) async throws -> Delivery {
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
        return Delivery(queue: queue, receiver: receiver, group: group, client: client)
    }

    func stop() async {
        await queue.stop()
        try? await client.shutdown()
        try? await group.shutdownGracefully()
        await receiver.shutdown()
    }
}
