import Foundation
import HearthChat
import HearthServer
import HearthTestSupport
import Testing

/// The durable missed-call timer: a call still ringing `ringTimeout` after `createdAt` becomes
/// `missed` with its message, never over an answer, and across a restart at once.
struct MissedCallTests {
    @Test func aCallNobodyAnswersIsMissed() async throws {
        try await ChatServer.withCalls(ringTimeout: .milliseconds(600)) { chat in
            let chatId = try await chat.privateChat("Alice", "Bob")
            let missed = try await chat.startCall(as: "Alice", in: chatId)
            let call = try await eventually({ try await chat.callRecord(missed) }) {
                $0["state"] as? String == "missed"
            }
            // Not early, and within a few check intervals (a loaded machine may take longer).
            let createdAt = try #require(call["createdAt"] as? Double)
            let endedAt = try #require(call["endedAt"] as? Double)
            #expect(endedAt - createdAt >= 600)
            #expect(endedAt - createdAt < 600 + 5_000)
            let message = try #require(try await chat.callMessages(in: chatId).first)
            #expect((message["call"] as? [String: Any])?["state"] as? String == "missed")
            #expect((message["call"] as? [String: Any])?["durationMs"] as? Double == 0)
            #expect(try await chat.number("/unreadTotals/\(chat.uid("Bob"))") == 1)
            #expect(try await chat.object("/ringingCalls").isEmpty)
            // Too late to answer.
            let late = try await chat.onCall("answerCall", missed, as: "Bob")
            #expect(late.status == 400 && late.body.contains("is 'missed'"), "\(late.body)")
        }
    }

    /// An answer that commits before the deadline is never overridden: the timer's write
    /// requires the call as it read it, ringing.
    @Test func anAnsweredCallIsLeftAlone() async throws {
        let timeout = Duration.milliseconds(800)
        try await ChatServer.withCalls(ringTimeout: timeout) { chat in
            let group = try await chat.group(with: ["Bob", "Carol"])
            let started = ContinuousClock.now
            let callId = try await chat.startCall(as: "Carol", in: group)
            let answer = try await chat.onCall("answerCall", callId, as: "Bob")
            guard answer.status == 200 else {
                // Only a machine too loaded to answer within the timeout may see it missed first.
                #expect(ContinuousClock.now - started >= timeout, "\(answer.body)")
                #expect(answer.body.contains("is 'missed'"), "\(answer.body)")
                return
            }
            try await Task.sleep(for: timeout * 2)
            #expect(try await chat.callRecord(callId)["state"] as? String == "accepted")
            #expect(try await chat.callMessages(in: group).isEmpty)
        }
    }

    @Test func aCallOfAChatDeletedWhileItRangEndsWithoutAMessage() async throws {
        try await ChatServer.withCalls(ringTimeout: .milliseconds(600)) { chat in
            let group = try await chat.group(with: ["Bob", "Carol"])
            let callId = try await chat.startCall(as: "Bob", in: group)
            let deleted = try await chat.call(
                "deleteChat",
                as: "Alice",
                data: #"{"chatId":"\#(group)","forEveryone":true}"#
            )
            #expect(deleted.status == 200, "\(deleted.body)")
            _ = try await eventually({ try await chat.callRecord(callId) }) { $0["state"] as? String == "missed" }
            #expect(try await chat.server.get("/messages/\(group)") == "null")
            #expect(try await chat.object("/ringingCalls").isEmpty)
        }
    }

    @Test func aMarkerWhoseCallIsGoneIsRemoved() async throws {
        try await ChatServer.withCalls(ringTimeout: .seconds(30)) { chat in
            let chatId = try await chat.privateChat("Alice", "Bob")
            try await chat.server.put("/ringingCalls/\(chatId)", #""ghost""#)
            _ = try await eventually({ try await chat.object("/ringingCalls") }) { $0.isEmpty }
            _ = try await chat.startCall(as: "Alice", in: chatId)
        }
    }

    /// Stopped while a call rings, started again after its deadline: the first look marks it.
    @Test func aCallOverdueAcrossARestartIsMissedAtOnce() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-missed-call-restart")
        defer { temporary.remove() }
        let directory = temporary.url
        var configuration = HearthServerConfiguration.testing(in: directory)
        try ChatApp.register(in: &configuration.callables, namespaces: ["default"])
        try ChatApp.register(in: &configuration.triggers, namespaces: ["default"])
        let timeout = Duration.milliseconds(1_500)
        configuration.services = ChatApp.services(
            namespaces: ["default"],
            calls: CallConfiguration(ringTimeout: timeout, checkInterval: .seconds(30))
        )

        let (first, one) = try await TestServer.start(configuration, in: directory)
        try await one.put("/chats/c1", #"{"type":"private","owner":"ada","createdAt":1}"#)
        try await one.put("/members/c1", #"{"ada":{"role":"owner","joinedAt":1},"bob":{"role":"member","joinedAt":1}}"#)
        let reply = try await one.send(
            "POST",
            "/functions/startCall",
            headers: [
                ("Content-Type", "application/json"), ("Authorization", "Bearer \(TokenMinter.token(uid: "ada"))"),
            ],
            text: #"{"data":{"chatId":"c1","kind":"audio","offer":"v=0"}}"#
        )
        let result = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        let callId = try #require((result?["result"] as? [String: Any])?["callId"] as? String, "\(reply.body)")
        #expect(try await one.get("/calls/\(callId)/state") == #""ringing""#)
        await first.shutdown()
        try await Task.sleep(for: timeout + .milliseconds(200))

        let restarted = Date().timeIntervalSince1970 * 1000
        let (second, two) = try await TestServer.start(configuration, in: directory)
        // A check interval of 30 s: only the start's first look can have marked it.
        let state = try await eventually(timeout: .seconds(5), { try await two.get("/calls/\(callId)/state") }) {
            $0 == #""missed""#
        }
        #expect(state == #""missed""#)
        // At the start's first look, not a check interval later.
        let endedAt = try #require(Double(try await two.get("/calls/\(callId)/endedAt")))
        #expect(endedAt - restarted < 5_000)
        let messages = try await two.get("/messages/c1")
        #expect(messages.contains(#""state":"missed""#))
        await second.shutdown()
    }
}
