import Foundation
import HearthCore
import HearthDatabase
import HearthStore
import HearthTestSupport
import Logging
import Testing

@testable import HearthChat

/// Planning a page of intents in one snapshot reads each member's presence, devices and mute
/// once for the page, and plans each intent as it would alone: a member's mute of one chat is
/// not another chat's, a private chat is titled by each message's own sender.
struct PushPlannerTests {
    @Test func aPageIsPlannedAsEachIntentAlone() async throws {
        let directory = try TemporaryDirectory(prefix: "hearth-push-planner")
        defer { directory.remove() }
        let store = try Store.open(directory: directory.path)
        defer { store.close() }
        let database = Database(
            store: store,
            rulesFiles: RulesFiles(defaultRulesFile: directory.path + "/rules.json"),
            logger: Logger(label: "hearth.test")
        )
        let engine = try await database.engine(for: "default")
        let tree = #"""
            {
              "chats": {"g1": {"type": "group", "name": "Hikers"}, "g2": {"type": "group", "name": "Cooks"},
                        "p1": {"type": "private"}},
              "users": {"ada": {"displayName": "Ada"}, "bob": {"displayName": "Bob"}},
              "presence": {"dan": {"state": "online"}, "cat": {"state": "offline"}},
              "userChats": {"cat": {"g1": {"muted": true}, "g2": {"muted": false}}},
              "devices": {
                "bob": {"phone": {"token": "b1", "platform": "fcm"}, "old": {"token": "", "platform": "fcm"}},
                "cat": {"phone": {"token": "c1", "platform": "apns"}},
                "dan": {"phone": {"token": "d1", "platform": "fcm"}},
                "ada": {"phone": {"token": "a1", "platform": "webpush"}}
              },
              "unreadTotals": {"bob": 4}
            }
            """#
        _ = try await engine.writeAsServer(Write(.set(.root, try TreeParser.parse(tree, at: .root))))
        let everyone = ["ada", "bob", "cat", "dan"]
        let intents: [PushIntent?] = [
            PushIntent(
                chatId: "g1",
                subject: .message(id: "m1"),
                sender: "ada",
                recipients: everyone,
                badges: [0, 1, 2, 3],
                body: "one",
                createdAt: 1
            ),
            PushIntent(
                chatId: "g2",
                subject: .message(id: "m2"),
                sender: "ada",
                recipients: everyone,
                badges: [0, 5, 6, 7],
                body: "two",
                createdAt: 2
            ),
            nil,
            PushIntent(
                chatId: "p1",
                subject: .message(id: "m3"),
                sender: "ada",
                recipients: ["ada", "bob"],
                body: "hi",
                createdAt: 3
            ),
            PushIntent(
                chatId: "p1",
                subject: .call(id: "k1", kind: "video"),
                sender: "bob",
                recipients: ["ada"],
                body: nil,
                createdAt: 4
            ),
        ]
        let planner = PushPlanner()
        let page = try engine.readAsServerSynchronously { planner.plan(intents, in: $0) }
        let alone = try engine.readAsServerSynchronously { snapshot in
            intents.map { $0.flatMap { planner.plan($0, in: snapshot) } }
        }
        #expect(page == alone)
        func devices(_ plan: PlannedIntent??) -> [String] {
            (plan??.pushes ?? []).map { "\($0.uid)/\($0.deviceId)/\($0.badge)" }
        }
        // g1: Cat muted it, Dan is online, Ada sent it, Bob's empty token is no device.
        #expect(devices(page[0]) == ["bob/phone/1"])
        #expect(page[0]?.content.title == "Hikers")
        // g2: Cat did not mute it.
        #expect(devices(page[1]) == ["bob/phone/5", "cat/phone/6"])
        #expect(page[1]?.content.title == "Cooks")
        #expect(page[2] == nil)
        // The private chat is titled by each one's sender; the call's badge is read.
        #expect(page[3]?.content.title == "Ada" && devices(page[3]) == ["bob/phone/4"])
        #expect(page[4]?.content.title == "Bob" && devices(page[4]) == ["ada/phone/0"])
        #expect(page[4]?.content.body == "Incoming video call")
    }
}
