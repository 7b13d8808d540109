import Foundation
import HearthChat
import HearthPush
import HearthPushFakes
import HearthTestSupport
import Testing

/// Push notifications end to end: a message commits its intent, the queue plans it for the
/// offline, unmuted members' devices and delivers each push once through the webhook.
@Suite(.timeLimit(.minutes(3))) struct PushDeliveryTests {
    @Test func aGroupMessagePushesEachOfflineUnmutedMembersDevicesOnce() async throws {
        let receiver = try await WebhookReceiver.start(secret: TestServer.adminSecret)
        try await ChatServer.withPushes(to: receiver) { chat in
            let group = try await chat.group("Hikers", with: ["Bob", "Carol", "Dave"])
            try await chat.registerDevice("phone", token: "bob-phone", for: "Bob")
            try await chat.registerDevice("tablet", token: "bob-tablet", platform: "apns", for: "Bob")
            try await chat.registerDevice("phone", token: "carol-phone", for: "Carol")
            try await chat.registerDevice("phone", token: "dave-phone", for: "Dave")
            try await chat.registerDevice("phone", token: "alice-phone", for: "Alice")
            // Carol muted the group; Dave is online (a live signed-in connection).
            let mute = try await chat.server.send(
                "PUT",
                "/userChats/\(chat.uid("Carol"))/\(group)/muted.json?auth=\(chat.users["Carol"]!.token)",
                text: "true"
            )
            #expect(mute.status == 200)
            let dave = try await LiveView.open(chat, as: "Dave")
            try await ChatServer.waitFor("Dave online") {
                try await chat.server.get("/presence/\(chat.uid("Dave"))/state") == #""online""#
            }
            let first = try await chat.post(
                "Summit at noon? This text is long enough to be cut at one hundred characters, so the push shows only its start.",
                as: "Alice",
                in: group
            )
            let second = try await chat.post("Bring water", as: "Alice", in: group)
            try await ChatServer.waitFor("four pushes") { receiver.accepted.count >= 4 }
            // Nothing more comes (Carol muted, Dave online, Alice sent them): both intents are
            // planned (the second's pushes came), and the figures below show nothing else queued
            // or sent.
            #expect(receiver.violations.isEmpty, "\(receiver.violations)")
            let pushes = receiver.accepted.compactMap(\.json)
            #expect(pushes.count == 4)
            #expect(Set(pushes.map(\.token)) == ["bob-phone", "bob-tablet"])
            #expect(receiver.duplicates.isEmpty)
            // Each device got the two messages in order, badges counting Bob's unread total.
            for token in ["bob-phone", "bob-tablet"] {
                let mine = pushes.filter { $0.token == token }
                #expect(mine.map { $0.data["messageId"] } == [first, second])
                #expect(mine.map(\.badge) == [1, 2])
                #expect(
                    mine.allSatisfy { $0.title == "Hikers" && $0.uid == chat.uid("Bob") && $0.data["chatId"] == group }
                )
                #expect(mine.first?.body.count == 100)
                #expect(mine.last?.body == "Bring water")
            }
            #expect(pushes.first { $0.token == "bob-tablet" }?.platform == "apns")
            let figures = try await chat.pushFigures(settled: "nothing queued") {
                ($0["queued"] as? Int) == 0 && ($0["sent"] as? Int ?? 0) >= 4
            }
            #expect(figures["sent"] as? Int == 4)
            #expect(figures["queued"] as? Int == 0)
            _ = dave
        }
        await receiver.shutdown()
    }

    @Test func aPrivateMessageIsTitledWithTheSendersNameAndAFailedPushIsRetriedInOrder() async throws {
        let receiver = try await WebhookReceiver.start(secret: TestServer.adminSecret)
        var settings = ChatPushService.Settings()
        settings.retry = PushRetryPolicy(firstDelay: .milliseconds(200), maximumDelay: .seconds(1))
        try await ChatServer.withPushes(to: receiver, settings: settings) { chat in
            let pair = try await chat.privateChat("Alice", "Bob")
            try await chat.registerDevice("phone", token: "bob-phone", for: "Bob")
            receiver.answerNext([.status(503, retryAfter: nil), .status(500, retryAfter: nil)])
            let first = try await chat.post("one", as: "Alice", in: pair)
            let second = try await chat.post("two", as: "Alice", in: pair)
            try await ChatServer.waitFor("two accepted pushes") { receiver.accepted.count >= 2 }
            let accepted = receiver.accepted.compactMap(\.json)
            #expect(accepted.map { $0.data["messageId"] } == [first, second])
            #expect(accepted.allSatisfy { $0.title == "Alice" })
            // The first push was tried three times under one id, the second only after it.
            let attempts = receiver.deliveries.map(\.pushID)
            #expect(attempts.count == 4)
            #expect(Set(attempts.prefix(3)).count == 1)
            let figures = try await chat.pushFigures()
            #expect((figures["failed"] as? [String: Int]) == ["http_503": 1, "http_500": 1])
        }
        await receiver.shutdown()
    }
}
