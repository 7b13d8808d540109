import Foundation
import HearthTestSupport
import Testing

@Suite struct DeleteMessageTests {
    @Test func theSenderDeletesForEveryoneAndCountersStay() async throws {
        try await ChatServer.with { chat in
            let bob = chat.uid("Bob")
            let group = try await chat.group()
            let first = try await chat.deliver(from: "Alice", in: group, to: ["Bob", "Carol"])
            let second = try await chat.deliver(from: "Alice", in: group, to: ["Bob", "Carol"])
            let data = #"{"chatId":"\#(group)","messageId":"\#(first)"}"#
            #expect(try ChatServer.result(try await chat.call("deleteMessage", as: "Alice", data: data)) == "{}")
            #expect(try await chat.object("/messages/\(group)").keys.sorted() == [second])
            #expect(try await chat.number("/userChats/\(bob)/\(group)/unread") == 2)
            #expect(try await chat.number("/unreadTotals/\(bob)") == 2)
            // Gone: a second call finds nothing.
            let again = try await chat.call("deleteMessage", as: "Alice", data: data)
            #expect(again.status == 404)
        }
    }

    @Test func refusalsNameTheFieldAndWriteNothing() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group()
            let message = try await chat.deliver(from: "Alice", in: group, to: ["Bob"])
            try await chat.expectRefusals(
                "deleteMessage",
                [
                    (
                        "Bob", #"{"chatId":"\#(group)","messageId":"\#(message)"}"#, 403, "PERMISSION_DENIED",
                        "'messageId' names '\(message)', which the caller"
                    ),
                    (
                        "Dave", #"{"chatId":"\#(group)","messageId":"\#(message)"}"#, 403, "PERMISSION_DENIED",
                        "is not a member"
                    ),
                    ("Alice", #"{"chatId":"\#(group)","messageId":"m0"}"#, 404, "NOT_FOUND", "'messageId' names 'm0'"),
                    (
                        "Alice", #"{"chatId":"ghost","messageId":"\#(message)"}"#, 404, "NOT_FOUND",
                        "'chatId' names 'ghost'"
                    ),
                    (
                        "Alice", #"{"chatId":"\#(group)","messageId":"a$b"}"#, 400, "INVALID_ARGUMENT",
                        "'messageId' has the value"
                    ),
                    ("Alice", #"{"chatId":"\#(group)"}"#, 400, "INVALID_ARGUMENT", "'messageId' is required"),
                    (nil, #"{"chatId":"\#(group)","messageId":"\#(message)"}"#, 401, "UNAUTHENTICATED", "signed-in"),
                ]
            )
        }
    }
}
