import Foundation
import HearthTestSupport
import Testing

/// The state machine of a call: ringing → accepted → ended; ringing → declined, cancelled;
/// each ending adds its `kind: "call"` message, counted by the message trigger like any message.
struct CallLifecycleTests {
    @Test func answeredThenEndedWithItsDurationInTheCallMessage() async throws {
        try await ChatServer.withCalls { chat in
            let chatId = try await chat.privateChat("Alice", "Bob")
            let callId = try await chat.startCall(as: "Alice", in: chatId)
            let answer = try await chat.onCall("answerCall", callId, as: "Bob")
            #expect(answer.status == 200)
            #expect(try ChatServer.result(answer) == "{}")
            var call = try await chat.callRecord(callId)
            #expect(call["state"] as? String == "accepted")
            #expect(call["callee"] as? String == chat.uid("Bob"))
            #expect(call["answer"] as? String == "v=0 answer of Bob")
            let answeredAt = try #require(call["answeredAt"] as? Double)
            #expect(try await chat.object("/ringingCalls").isEmpty)
            #expect(try await chat.callMessages(in: chatId).isEmpty, "no message while the call lasts")
            try await Task.sleep(for: .milliseconds(30))
            let end = try await chat.onCall("endCall", callId, as: "Bob")
            #expect(try ChatServer.result(end) == "{}")
            call = try await chat.callRecord(callId)
            #expect(call["state"] as? String == "ended")
            let endedAt = try #require(call["endedAt"] as? Double)
            #expect(endedAt - answeredAt >= 30)
            let messages = try await chat.callMessages(in: chatId)
            #expect(messages.count == 1)
            let message = try #require(messages.first)
            #expect(message["sender"] as? String == chat.uid("Alice"))
            #expect(message["sentAt"] is Double)
            let summary = try #require(message["call"] as? [String: Any])
            #expect(summary["callId"] as? String == callId)
            #expect(summary["state"] as? String == "ended")
            #expect(summary["durationMs"] as? Double == endedAt - answeredAt)
            #expect(Set(summary.keys) == ["callId", "state", "durationMs"])
            // The message trigger counted it: Bob has one unread, the chat's lastMessage is it.
            #expect(try await chat.number("/userChats/\(chat.uid("Bob"))/\(chatId)/unread") == 1)
            #expect(try await chat.number("/unreadTotals/\(chat.uid("Bob"))") == 1)
            #expect(try await chat.number("/userChats/\(chat.uid("Alice"))/\(chatId)/unread") == 0)
            let last = try await chat.object("/chats/\(chatId)/lastMessage")
            #expect(last["kind"] as? String == "call")
            #expect(last["sender"] as? String == chat.uid("Alice"))
            #expect((last["call"] as? [String: Any])?["state"] as? String == "ended")
            // Both members read the call message under the shipped rules.
            #expect(try await chat.read("/messages/\(chatId)", as: "Bob").status == 200)
            // Over: nothing moves it on.
            let again = try await chat.onCall("endCall", callId, as: "Alice")
            #expect(again.status == 400 && again.body.contains("FAILED_PRECONDITION"), "\(again.body)")
            #expect(again.body.contains("is already over ('ended')"))
        }
    }

    @Test(arguments: [
        (function: "declineCall", by: "Bob", state: "declined"),
        (function: "endCall", by: "Alice", state: "cancelled"),
    ])
    func aRingingCallEndsWithoutAnAnswer(function: String, by name: String, state: String) async throws {
        try await ChatServer.withCalls { chat in
            let chatId = try await chat.privateChat("Alice", "Bob")
            let callId = try await chat.startCall(as: "Alice", in: chatId)
            let reply = try await chat.onCall(function, callId, as: name)
            #expect(try ChatServer.result(reply) == "{}")
            let call = try await chat.callRecord(callId)
            #expect(call["state"] as? String == state)
            #expect(call["endedAt"] is Double)
            #expect(call["answeredAt"] == nil)
            #expect(try await chat.object("/ringingCalls").isEmpty)
            let message = try #require(try await chat.callMessages(in: chatId).first)
            let summary = try #require(message["call"] as? [String: Any])
            #expect(summary["state"] as? String == state)
            #expect(summary["durationMs"] as? Double == 0)
            #expect(try await chat.number("/unreadTotals/\(chat.uid("Bob"))") == 1)
            // The chat rings again.
            _ = try await chat.startCall(as: "Bob", in: chatId)
        }
    }

    @Test func refusalsOfAnswerDeclineAndEnd() async throws {
        try await ChatServer.withCalls { chat in
            let chatId = try await chat.privateChat("Alice", "Bob")
            let ringing = try await chat.startCall(as: "Alice", in: chatId)
            let group = try await chat.group(with: ["Bob", "Carol"])
            let answered = try await chat.startCall(as: "Alice", in: group)
            #expect(try await chat.onCall("answerCall", answered, as: "Bob").status == 200)
            let notFound = "which is not a call of a chat the caller"
            try await chat.expectRefusals(
                "answerCall",
                [
                    (
                        nil, #"{"callId":"\#(ringing)","answer":"v=0"}"#, 401, "UNAUTHENTICATED",
                        "need a signed-in caller"
                    ),
                    ("Bob", #"[]"#, 400, "INVALID_ARGUMENT", "The data must be an object"),
                    ("Bob", #"{"answer":"v=0"}"#, 400, "INVALID_ARGUMENT", "'callId' is required"),
                    ("Bob", #"{"callId":"\#(ringing)"}"#, 400, "INVALID_ARGUMENT", "'answer' is required"),
                    ("Bob", #"{"callId":"\#(ringing)","answer":""}"#, 400, "INVALID_ARGUMENT", "'answer' is empty"),
                    (
                        "Bob", #"{"callId":"\#(ringing)","answer":"\#(String(repeating: "a", count: 65_537))"}"#, 400,
                        "INVALID_ARGUMENT", "'answer' is 65537 bytes long"
                    ),
                    (
                        "Bob", #"{"callId":"nocall","answer":"v=0"}"#, 404, "NOT_FOUND",
                        "'callId' names 'nocall', \(notFound)"
                    ),
                    ("Carol", #"{"callId":"\#(ringing)","answer":"v=0"}"#, 404, "NOT_FOUND", notFound),
                    (
                        "Alice", #"{"callId":"\#(ringing)","answer":"v=0"}"#, 403, "PERMISSION_DENIED",
                        "only a callee answers or declines it"
                    ),
                    (
                        "Carol", #"{"callId":"\#(answered)","answer":"v=0"}"#, 400, "FAILED_PRECONDITION",
                        "is 'accepted', not 'ringing': only a ringing call can be answered"
                    ),
                ]
            )
            try await chat.expectRefusals(
                "declineCall",
                [
                    (nil, #"{"callId":"\#(ringing)"}"#, 401, "UNAUTHENTICATED", "need a signed-in caller"),
                    ("Bob", #"{}"#, 400, "INVALID_ARGUMENT", "'callId' is required"),
                    ("Bob", #"{"callId":"a/b"}"#, 400, "INVALID_ARGUMENT", "not a valid call id"),
                    ("Carol", #"{"callId":"\#(ringing)"}"#, 404, "NOT_FOUND", notFound),
                    ("Alice", #"{"callId":"\#(ringing)"}"#, 403, "PERMISSION_DENIED", "endCall cancels it"),
                    (
                        "Carol", #"{"callId":"\#(answered)"}"#, 400, "FAILED_PRECONDITION",
                        "only a ringing call can be declined"
                    ),
                ]
            )
            try await chat.expectRefusals(
                "endCall",
                [
                    (nil, #"{"callId":"\#(ringing)"}"#, 401, "UNAUTHENTICATED", "need a signed-in caller"),
                    ("Bob", #"{"callId":true}"#, 400, "INVALID_ARGUMENT", "'callId' must be a call id string"),
                    ("Dave", #"{"callId":"\#(ringing)"}"#, 404, "NOT_FOUND", notFound),
                    ("Dave", #"{"callId":"\#(answered)"}"#, 404, "NOT_FOUND", notFound),
                    (
                        "Bob", #"{"callId":"\#(ringing)"}"#, 400, "FAILED_PRECONDITION",
                        "is still ringing: a callee declines it with declineCall"
                    ),
                    (
                        "Carol", #"{"callId":"\#(answered)"}"#, 403, "PERMISSION_DENIED",
                        "only they end it, not the caller '\(chat.uid("Carol"))'"
                    ),
                ]
            )
        }
    }

    @Test func aPartyWhoLeftTheChatStillHangsUp() async throws {
        try await ChatServer.withCalls { chat in
            let group = try await chat.group(with: ["Bob", "Carol"])
            let callId = try await chat.startCall(as: "Alice", in: group)
            #expect(try await chat.onCall("answerCall", callId, as: "Bob").status == 200)
            try await chat.leave("Bob", group)
            #expect(try ChatServer.result(try await chat.onCall("endCall", callId, as: "Bob")) == "{}")
            #expect(try await chat.callRecord(callId)["state"] as? String == "ended")
            #expect(try await chat.callMessages(in: group).count == 1)
            // A chat deleted for everyone during a call: hanging up leaves no message behind.
            let chatId = try await chat.privateChat("Alice", "Carol")
            let second = try await chat.startCall(as: "Carol", in: chatId)
            #expect(try await chat.onCall("answerCall", second, as: "Alice").status == 200)
            let deleted = try await chat.call(
                "deleteChat",
                as: "Carol",
                data: #"{"chatId":"\#(chatId)","forEveryone":true}"#
            )
            #expect(deleted.status == 200, "\(deleted.body)")
            #expect(try await chat.onCall("endCall", second, as: "Alice").status == 200)
            #expect(try await chat.callRecord(second)["state"] as? String == "ended")
            #expect(try await chat.server.get("/messages/\(chatId)") == "null")
            // Someone who is neither a member nor a party still finds nothing.
            let third = try await chat.startCall(as: "Alice", in: group)
            let stranger = try await chat.onCall("endCall", third, as: "Dave")
            #expect(stranger.status == 404, "\(stranger.body)")
        }
    }

    @Test func aPrivateCallIsAnsweredByItsCalleeOnly() async throws {
        try await ChatServer.withCalls { chat in
            let chatId = try await chat.privateChat("Alice", "Bob")
            let callId = try await chat.startCall(as: "Bob", in: chatId)
            #expect(try await chat.onCall("answerCall", callId, as: "Alice").status == 200)
            // The caller's ICE candidates, pushed under the rules; the callee's too.
            for name in ["Alice", "Bob"] {
                let reply = try await chat.server.send(
                    "POST",
                    "/calls/\(callId)/candidates/\(chat.uid(name)).json?auth=\(chat.users[name]!.token)",
                    text: #""candidate:1 1 udp 2122260223 192.0.2.1 54400 typ host""#
                )
                #expect(reply.status == 200, "\(name): \(reply.body)")
            }
            let stranger = try await chat.server.send(
                "POST",
                "/calls/\(callId)/candidates/\(chat.uid("Carol")).json?auth=\(chat.users["Carol"]!.token)",
                text: #""candidate:x""#
            )
            #expect(stranger.status == 401)
            #expect(try await chat.onCall("endCall", callId, as: "Alice").status == 200)
            let late = try await chat.server.send(
                "POST",
                "/calls/\(callId)/candidates/\(chat.uid("Bob")).json?auth=\(chat.users["Bob"]!.token)",
                text: #""candidate:late""#
            )
            #expect(late.status == 401, "no candidates once the call is over")
        }
    }
}
