import Foundation
import HearthChat
import HearthPush
import HearthPushFakes
import HearthTestSupport
import Testing

/// Push notifications through FCM HTTP v1 (the fake checks the grant's signed JWT and every
/// field of each send): a dead token's device is removed and its later pushes dropped.
@Suite(.timeLimit(.minutes(3))) struct PushFCMTests {
    @Test func pushesGoThroughFCMAndAnUnregisteredTokensDeviceIsRemoved() async throws {
        let directory = try TemporaryDirectory(prefix: "hearth-fcm")
        let fake = try await FakeFCM.start(directory: URL(fileURLWithPath: directory.path))
        try await ChatServer.withPushes(to: fake) { chat in
            let pair = try await chat.privateChat("Alice", "Bob")
            try await chat.registerDevice("phone", token: "bob-phone", for: "Bob")
            try await chat.registerDevice("old", token: "bob-old", platform: "apns", for: "Bob")
            fake.answerSends(toToken: "bob-old", with: .unregistered)
            let message = try await chat.post("hello", as: "Alice", in: pair)
            try await ChatServer.waitFor("the old device removed") {
                try await chat.server.get("/devices/\(chat.uid("Bob"))/old") == "null"
            }
            try await ChatServer.waitFor("the phone's push") { fake.accepted.count == 1 }
            #expect(fake.violations.isEmpty, "\(fake.violations)")
            let send = try #require(fake.accepted.first)
            #expect(send.token == "bob-phone")
            #expect(send.title == "Alice")
            #expect(send.body == "hello")
            #expect(send.badge == 1)
            #expect(send.data["chatId"] == pair && send.data["messageId"] == message)
            #expect(fake.grants.count == 1)
            // The phone still gets the next one; the removed device gets nothing more.
            _ = try await chat.post("again", as: "Alice", in: pair)
            try await ChatServer.waitFor("the second push") { fake.accepted.count == 2 }
            #expect(fake.sends.filter { $0.token == "bob-old" }.count == 1)
            #expect(try await chat.server.get("/devices/\(chat.uid("Bob"))/phone/token") == #""bob-phone""#)
            let figures = try await chat.pushFigures(settled: "two pushes sent") {
                ($0["queued"] as? Int) == 0 && ($0["sent"] as? Int ?? 0) >= 2
            }
            #expect((figures["dropped"] as? [String: Int]) == ["unregistered": 1])
            #expect(figures["sent"] as? Int == 2)
        }
        await fake.shutdown()
    }
}
