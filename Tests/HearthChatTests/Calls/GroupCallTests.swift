import Foundation
import HearthTestSupport
import Testing

/// A group call rings every other member; the first to answer takes it; one member's decline
/// stops it ringing for that member only, until every other member has declined.
struct GroupCallTests {
    @Test func ofTwoConcurrentAnswersExactlyOneWins() async throws {
        try await ChatServer.withCalls { chat in
            let group = try await chat.group(with: ["Bob", "Carol", "Dave"])
            for round in 0..<5 {
                let callId = try await chat.startCall(as: "Alice", in: group)
                let replies = try await withThrowingTaskGroup(of: (String, TestServer.Reply).self) { tasks in
                    for name in ["Bob", "Carol"] {
                        tasks.addTask { (name, try await chat.onCall("answerCall", callId, as: name)) }
                    }
                    return try await tasks.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
                let winners = replies.filter { $0.value.status == 200 }.map(\.key)
                #expect(winners.count == 1, "round \(round): \(replies.mapValues(\.body))")
                let winner = try #require(winners.first)
                let loser = winner == "Bob" ? "Carol" : "Bob"
                let lost = try #require(replies[loser])
                #expect(lost.status == 400 && lost.body.contains("FAILED_PRECONDITION"), "\(lost.body)")
                #expect(lost.body.contains("is 'accepted', not 'ringing'"))
                let call = try await chat.callRecord(callId)
                #expect(call["state"] as? String == "accepted")
                #expect(call["callee"] as? String == chat.uid(winner))
                #expect(call["answer"] as? String == "v=0 answer of \(winner)")
                // Dave's client stops ringing: the state left `ringing`; he cannot take it now.
                #expect(try await chat.onCall("answerCall", callId, as: "Dave").status == 400)
                #expect(try await chat.onCall("endCall", callId, as: "Dave").status == 403)
                #expect(try await chat.onCall("endCall", callId, as: winner).status == 200)
            }
        }
    }

    @Test func oneDeclineRingsOnForTheOthersUntilEveryoneDeclined() async throws {
        try await ChatServer.withCalls { chat in
            let group = try await chat.group(with: ["Bob", "Carol", "Dave"])
            let callId = try await chat.startCall(as: "Alice", in: group)
            for name in ["Bob", "Carol"] {
                #expect(try ChatServer.result(try await chat.onCall("declineCall", callId, as: name)) == "{}")
                let call = try await chat.callRecord(callId)
                #expect(call["state"] as? String == "ringing")
                #expect((call["declinedBy"] as? [String: Any])?[chat.uid(name)] as? Bool == true)
            }
            #expect(try await chat.callMessages(in: group).isEmpty)
            // Bob changes his mind: the call still rings, so he may answer it.
            let bobAgain = try await chat.onCall("declineCall", callId, as: "Bob")
            #expect(bobAgain.status == 200, "declining twice is harmless")
            #expect(try await chat.onCall("declineCall", callId, as: "Dave").status == 200)
            let call = try await chat.callRecord(callId)
            #expect(call["state"] as? String == "declined")
            #expect(call["endedAt"] is Double)
            let message = try #require(try await chat.callMessages(in: group).first)
            #expect((message["call"] as? [String: Any])?["state"] as? String == "declined")
            for name in ["Bob", "Carol", "Dave"] {
                #expect(try await chat.number("/userChats/\(chat.uid(name))/\(group)/unread") == 1)
            }
        }
    }

    @Test func aMemberWhoDeclinedMayStillAnswer() async throws {
        try await ChatServer.withCalls { chat in
            let group = try await chat.group(with: ["Bob", "Carol"])
            let callId = try await chat.startCall(as: "Alice", in: group)
            #expect(try await chat.onCall("declineCall", callId, as: "Bob").status == 200)
            #expect(try await chat.onCall("answerCall", callId, as: "Bob").status == 200)
            let call = try await chat.callRecord(callId)
            #expect(call["state"] as? String == "accepted")
            #expect(call["callee"] as? String == chat.uid("Bob"))
        }
    }
}
