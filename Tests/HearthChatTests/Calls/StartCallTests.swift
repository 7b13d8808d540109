import Foundation
import HearthTestSupport
import Testing

/// `startCall {chatId, kind, offer}` → `{callId}`: a member rings the chat; one ringing call
/// per chat; the chat's members read the call under the shipped rules, nobody else.
struct StartCallTests {
    @Test func aPrivateCallRingsTheOtherPartyAndItsMembersReadIt() async throws {
        try await ChatServer.withCalls { chat in
            let chatId = try await chat.privateChat("Alice", "Bob")
            let before = Date().timeIntervalSince1970 * 1000
            let reply = try await chat.call(
                "startCall",
                as: "Alice",
                data: #"{"chatId":"\#(chatId)","kind":"video","offer":"v=0 offer"}"#
            )
            let result = try #require(
                (try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any])?["result"]
                    as? [String: Any]
            )
            #expect(Array(result.keys) == ["callId"])
            let callId = try #require(result["callId"] as? String)
            #expect(callId.count == 20, "a push id")
            let call = try await chat.callRecord(callId)
            #expect(call["chatId"] as? String == chatId)
            #expect(call["caller"] as? String == chat.uid("Alice"))
            #expect(call["callee"] as? String == chat.uid("Bob"))
            #expect(call["kind"] as? String == "video")
            #expect(call["state"] as? String == "ringing")
            #expect(call["offer"] as? String == "v=0 offer")
            let createdAt = try #require(call["createdAt"] as? Double)
            #expect(createdAt >= before.rounded(.down) && createdAt <= Date().timeIntervalSince1970 * 1000 + 1)
            #expect(call["answer"] == nil && call["answeredAt"] == nil && call["endedAt"] == nil)
            // The parties read it under the shipped rules; Carol, who is not in the chat, does not.
            #expect(try await chat.read("/calls/\(callId)", as: "Bob").status == 200)
            #expect(try await chat.read("/calls/\(callId)", as: "Alice").status == 200)
            #expect(try await chat.read("/calls/\(callId)", as: "Carol").status == 401)
            #expect(try await chat.read("/calls", as: "Alice").status == 401)
            #expect(try await chat.read("/ringingCalls/\(chatId)", as: "Alice").status == 401)
        }
    }

    @Test func aGroupCallRingsEveryOtherMemberWithoutACallee() async throws {
        try await ChatServer.withCalls { chat in
            let group = try await chat.group(with: ["Bob", "Carol"])
            let callId = try await chat.startCall(as: "Bob", in: group)
            let call = try await chat.callRecord(callId)
            #expect(call["caller"] as? String == chat.uid("Bob"))
            #expect(call["callee"] == nil)
            #expect(call["state"] as? String == "ringing")
            for name in ["Alice", "Carol"] {
                #expect(try await chat.read("/calls/\(callId)", as: name).status == 200)
            }
            #expect(try await chat.read("/calls/\(callId)", as: "Dave").status == 401)
        }
    }

    @Test func oneRingingCallPerChatAndANewOneOnceItStopsRinging() async throws {
        try await ChatServer.withCalls { chat in
            let chatId = try await chat.privateChat("Alice", "Bob")
            let first = try await chat.startCall(as: "Alice", in: chatId)
            try await chat.expectRefusals(
                "startCall",
                [
                    (
                        "Bob", #"{"chatId":"\#(chatId)","kind":"audio","offer":"v=0"}"#, 400, "FAILED_PRECONDITION",
                        "already has the ringing call '\(first)'"
                    ),
                    (
                        "Alice", #"{"chatId":"\#(chatId)","kind":"video","offer":"v=0"}"#, 400, "FAILED_PRECONDITION",
                        "one ringing call per chat"
                    ),
                ]
            )
            // Another chat rings at the same time.
            let other = try await chat.privateChat("Alice", "Carol")
            _ = try await chat.startCall(as: "Carol", in: other)
            #expect(try await chat.onCall("answerCall", first, as: "Bob").status == 200)
            let second = try await chat.startCall(as: "Bob", in: chatId)
            #expect(second != first)
        }
    }

    @Test func concurrentStartsRingOnce() async throws {
        try await ChatServer.withCalls { chat in
            let group = try await chat.group(with: ["Bob", "Carol", "Dave"])
            let statuses = try await withThrowingTaskGroup(of: Int.self) { tasks in
                for name in ["Alice", "Bob", "Carol", "Dave"] {
                    tasks.addTask {
                        try await chat.call(
                            "startCall",
                            as: name,
                            data: #"{"chatId":"\#(group)","kind":"audio","offer":"v=0"}"#
                        ).status
                    }
                }
                return try await tasks.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200, 400, 400, 400])
            let calls = try await chat.object("/calls")
            #expect(calls.count == 1)
        }
    }

    @Test func refusals() async throws {
        try await ChatServer.withCalls { chat in
            let chatId = try await chat.privateChat("Alice", "Bob")
            let group = try await chat.group(with: ["Bob", "Carol"])
            let longOffer = String(repeating: "a", count: 65_537)
            try await chat.expectRefusals(
                "startCall",
                [
                    (
                        nil, #"{"chatId":"\#(chatId)","kind":"audio","offer":"v=0"}"#, 401, "UNAUTHENTICATED",
                        "need a signed-in caller"
                    ),
                    ("Alice", #""call""#, 400, "INVALID_ARGUMENT", "The data must be an object"),
                    ("Alice", #"{"kind":"audio","offer":"v=0"}"#, 400, "INVALID_ARGUMENT", "'chatId' is required"),
                    (
                        "Alice", #"{"chatId":7,"kind":"audio","offer":"v=0"}"#, 400, "INVALID_ARGUMENT",
                        "'chatId' must be a chat id string"
                    ),
                    ("Alice", #"{"chatId":"\#(chatId)","offer":"v=0"}"#, 400, "INVALID_ARGUMENT", "'kind' is required"),
                    (
                        "Alice", #"{"chatId":"\#(chatId)","kind":"screen","offer":"v=0"}"#, 400, "INVALID_ARGUMENT",
                        "'kind' is 'screen'; a call is 'audio' or 'video'"
                    ),
                    (
                        "Alice", #"{"chatId":"\#(chatId)","kind":"audio"}"#, 400, "INVALID_ARGUMENT",
                        "'offer' is required"
                    ),
                    (
                        "Alice", #"{"chatId":"\#(chatId)","kind":"audio","offer":""}"#, 400, "INVALID_ARGUMENT",
                        "'offer' is empty"
                    ),
                    (
                        "Alice", #"{"chatId":"\#(chatId)","kind":"audio","offer":{"sdp":"v=0"}}"#, 400,
                        "INVALID_ARGUMENT", "'offer' must be a string"
                    ),
                    (
                        "Alice", #"{"chatId":"\#(chatId)","kind":"audio","offer":"\#(longOffer)"}"#, 400,
                        "INVALID_ARGUMENT", "'offer' is 65537 bytes long; the limit is 65536 bytes"
                    ),
                    (
                        "Alice", #"{"chatId":"nochat","kind":"audio","offer":"v=0"}"#, 404, "NOT_FOUND",
                        "'chatId' names 'nochat', which is not a chat"
                    ),
                    (
                        "Carol", #"{"chatId":"\#(chatId)","kind":"audio","offer":"v=0"}"#, 403, "PERMISSION_DENIED",
                        "is not a member of the chat '\(chatId)'"
                    ),
                    (
                        "Dave", #"{"chatId":"\#(group)","kind":"audio","offer":"v=0"}"#, 403, "PERMISSION_DENIED",
                        "is not a member of the chat '\(group)'"
                    ),
                ]
            )
        }
    }

    @Test func anOfferOfTheLimitIsAccepted() async throws {
        try await ChatServer.withCalls { chat in
            let chatId = try await chat.privateChat("Alice", "Bob")
            let offer = String(repeating: "é", count: 32_768)  // 65,536 bytes of UTF-8
            let reply = try await chat.call(
                "startCall",
                as: "Alice",
                data: #"{"chatId":"\#(chatId)","kind":"audio","offer":"\#(offer)"}"#
            )
            #expect(reply.status == 200, "\(reply.body.prefix(200))")
        }
    }

    @Test func aBlockInEitherDirectionLooksLikeAnUnreachableParty() async throws {
        try await ChatServer.withCalls { chat in
            let chatId = try await chat.privateChat("Alice", "Bob")
            let data = #"{"chatId":"\#(chatId)","kind":"audio","offer":"v=0"}"#
            let message = "whose other party is not a registered user"
            #expect(
                try await chat.call("blockUser", as: "Bob", data: #"{"uid":"\#(chat.uid("Alice"))"}"#).status == 200
            )
            try await chat.expectRefusals(
                "startCall",
                [("Alice", data, 404, "NOT_FOUND", message), ("Bob", data, 404, "NOT_FOUND", message)]
            )
            #expect(
                try await chat.call("unblockUser", as: "Bob", data: #"{"uid":"\#(chat.uid("Alice"))"}"#).status == 200
            )
            _ = try await chat.startCall(as: "Alice", in: chatId)
        }
    }

    @Test func aGroupWithNobodyElseHasNobodyToCall() async throws {
        try await ChatServer.withCalls { chat in
            let group = try await chat.group(with: ["Bob", "Carol"])
            for name in ["Bob", "Carol"] { try await chat.leave(name, group) }
            try await chat.expectRefusals(
                "startCall",
                [
                    (
                        "Alice", #"{"chatId":"\#(group)","kind":"audio","offer":"v=0"}"#, 400, "FAILED_PRECONDITION",
                        "has no other member to call"
                    )
                ]
            )
        }
    }
}
