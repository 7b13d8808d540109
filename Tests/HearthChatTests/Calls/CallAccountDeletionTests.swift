import Foundation
import HearthTestSupport
import Testing

/// Deleting an account ends its ringing calls: one it placed is cancelled, one ringing for it
/// in a private chat is missed; a group call rings on for the others.
struct CallAccountDeletionTests {
    @Test func theRingingCallsOfADeletedAccountEnd() async throws {
        try await ChatServer.withCalls { chat in
            let withBob = try await chat.privateChat("Alice", "Bob")
            let withCarol = try await chat.privateChat("Carol", "Alice")
            let group = try await chat.group(with: ["Bob", "Carol"])
            let placed = try await chat.startCall(as: "Alice", in: withBob)
            let incoming = try await chat.startCall(as: "Carol", in: withCarol)
            let groupCall = try await chat.startCall(as: "Bob", in: group)
            try await chat.deleteAccount("Alice")
            #expect(try await chat.callRecord(placed)["state"] as? String == "cancelled")
            #expect(try await chat.callRecord(incoming)["state"] as? String == "missed")
            #expect(try await chat.callRecord(groupCall)["state"] as? String == "ringing")
            let message = try #require(try await chat.callMessages(in: withBob).first)
            #expect((message["call"] as? [String: Any])?["state"] as? String == "cancelled")
            #expect(try await chat.object("/ringingCalls").keys.sorted() == [group])
            #expect(try await chat.onCall("answerCall", groupCall, as: "Carol").status == 200)
        }
    }
}
