import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

/// `acceptChat {chatId}`: every refusal, each naming the field or value and writing nothing.
@Suite(.timeLimit(.minutes(3))) struct AcceptChatTests {
    @Test func refusalsNameTheChatAndWriteNothing() async throws {
        try await ChatServer.withShippedFriends { chat in
            let id = try await chat.startChat("Alice", with: "Bob")
            let group = try ChatServer.chatID(
                try await chat.call(
                    "createGroup",
                    as: "Alice",
                    data: #"{"name":"Pals","participants":["\#(chat.uid("Bob"))","\#(chat.uid("Carol"))"]}"#
                )
            )
            let deleted = try await chat.startChat("Dave", with: "Bob")
            #expect(try await chat.call("deleteChat", as: "Bob", data: #"{"chatId":"\#(deleted)"}"#).status == 200)
            let notPrivate = "which is not a private chat of the caller."
            let cases: [(caller: String?, data: String, status: Int, code: String, message: String)] = [
                (nil, #"{"chatId":"\#(id)"}"#, 401, "UNAUTHENTICATED", "signed-in caller"),
                ("Bob", #""\#(id)""#, 400, "INVALID_ARGUMENT", "The data must be an object"),
                ("Bob", #"{}"#, 400, "INVALID_ARGUMENT", "'chatId' is required"),
                ("Bob", #"{"chatId":7}"#, 400, "INVALID_ARGUMENT", "'chatId' must be a chat id string"),
                ("Bob", #"{"chatId":"a/b"}"#, 400, "INVALID_ARGUMENT", "'chatId' has the value 'a/b'"),
                ("Bob", #"{"chatId":"nope"}"#, 404, "NOT_FOUND", "'chatId' names 'nope', \(notPrivate)"),
                ("Bob", #"{"chatId":"\#(group)"}"#, 404, "NOT_FOUND", "'chatId' names '\(group)', \(notPrivate)"),
                ("Carol", #"{"chatId":"\#(id)"}"#, 404, "NOT_FOUND", "'chatId' names '\(id)', \(notPrivate)"),
                (
                    "Bob", #"{"chatId":"\#(deleted)"}"#, 404, "NOT_FOUND",
                    "'chatId' names '\(deleted)', which is not in the caller's chat list"
                ),
            ]
            for (caller, data, status, code, message) in cases {
                let reply = try await chat.call("acceptChat", as: caller, data: data)
                #expect(reply.status == status, "\(data): \(reply.body)")
                #expect(reply.body.contains(#""status":"\#(code)""#), "\(data): \(reply.body)")
                #expect(reply.body.contains(message), "\(data): \(reply.body)")
            }
            #expect(try await chat.hasRequest("Bob", id))
            #expect(try await chat.server.get("/userChats/\(chat.uid("Bob"))/\(deleted)") == "null")
            // A chat that is not the caller's answers alike whether or not it exists.
            let other = try await chat.call("acceptChat", as: "Carol", data: #"{"chatId":"\#(id)"}"#)
            let missing = try await chat.call("acceptChat", as: "Carol", data: #"{"chatId":"p0"}"#)
            #expect(other.body.replacingOccurrences(of: id, with: "p0") == missing.body)
        }
    }

    /// Only a chat-app namespace runs it, as every chat callable.
    @Test func aNamespaceWithoutTheChatAppAnswersNotFound() async throws {
        try await ChatServer.withShippedFriends { chat in
            let reply = try await chat.call("acceptChat", as: "Bob", data: #"{"chatId":"x"}"#, ns: "elsewhere")
            #expect(reply.status == 404, "\(reply.body)")
        }
    }
}
