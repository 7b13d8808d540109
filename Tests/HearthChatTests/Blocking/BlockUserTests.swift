import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

/// `blockUser` and `unblockUser`: what they write, their refusals.
@Suite(.timeLimit(.minutes(3))) struct BlockUserTests {
    @Test func blockingWritesTheEntryAndItsMarkerAndUnblockingRemovesBoth() async throws {
        try await ChatServer.with { chat in
            let (alice, bob) = (chat.uid("Alice"), chat.uid("Bob"))
            try await chat.block("Bob", by: "Alice")
            #expect(try await chat.server.get("/blocks/\(alice)") == #"{"\#(bob)":true}"#)
            #expect(try await chat.server.get(chat.markerPath("Alice", "Bob")) == #""\#(alice)""#)
            // Again: the same state.
            try await chat.block("Bob", by: "Alice")
            #expect(try await chat.server.get("/blocks/\(alice)") == #"{"\#(bob)":true}"#)
            // Both ways at once: two entries, two markers under the same private chat id.
            try await chat.block("Alice", by: "Bob")
            let pair = CreateChat.chatID(alice, bob)
            #expect(
                canonicalJSON(try await chat.object("/blockedSenders/\(pair)"))
                    == canonicalJSON([bob: alice, alice: bob])
            )
            try await chat.block("Bob", by: "Alice", unblock: true)
            #expect(try await chat.server.get("/blocks/\(alice)") == "null")
            #expect(try await chat.server.get(chat.markerPath("Alice", "Bob")) == "null")
            #expect(try await chat.server.get(chat.markerPath("Bob", "Alice")) == #""\#(bob)""#)
            // Unblocking someone not blocked, or not registered: `{}`, nothing changes.
            try await chat.block("Bob", by: "Alice", unblock: true)
            let ghost = try await chat.call("unblockUser", as: "Alice", data: #"{"uid":"ghost"}"#)
            #expect(try ChatServer.result(ghost) == "{}")
            #expect(try await chat.server.get("/blocks") == #"{"\#(bob)":{"\#(alice)":true}}"#)
        }
    }

    @Test(arguments: ["blockUser", "unblockUser"])
    func refusalsNameTheFieldAndWriteNothing(function: String) async throws {
        try await ChatServer.with { chat in
            let alice = chat.uid("Alice")
            var cases: [(String?, String, Int, String, String)] = [
                ("Alice", #"{"uid":"\#(alice)"}"#, 400, "INVALID_ARGUMENT", "'uid' is the caller '\(alice)'"),
                ("Alice", #"{}"#, 400, "INVALID_ARGUMENT", "'uid' is required"),
                ("Alice", #"{"uid":7}"#, 400, "INVALID_ARGUMENT", "'uid' must be a uid string"),
                ("Alice", #"{"uid":""}"#, 400, "INVALID_ARGUMENT", "'uid' has the uid ''"),
                ("Alice", #"{"uid":"a/b"}"#, 400, "INVALID_ARGUMENT", "'uid' has the uid 'a/b'"),
                ("Alice", #""bob""#, 400, "INVALID_ARGUMENT", "The data must be an object"),
                (nil, #"{"uid":"x"}"#, 401, "UNAUTHENTICATED", "signed-in caller"),
            ]
            if function == "blockUser" {
                cases.append(
                    (
                        "Alice", #"{"uid":"ghost"}"#, 404, "NOT_FOUND",
                        "'uid' names 'ghost', which is not a registered user"
                    )
                )
            }
            for (caller, data, status, code, message) in cases {
                let reply = try await chat.call(function, as: caller, data: data)
                #expect(reply.status == status, "\(data): \(reply.body)")
                #expect(reply.body.contains(#""status":"\#(code)""#), "\(data): \(reply.body)")
                #expect(reply.body.contains(message), "\(data): \(reply.body)")
            }
            #expect(try await chat.server.get("/blocks") == "null")
            #expect(try await chat.server.get("/blockedSenders") == "null")
        }
    }

    @Test func onlyRegisteredUsersBlockAndAreBlocked() async throws {
        try await ChatServer.with { chat in
            let alice = chat.uid("Alice")
            // An account without a profile is not a registered user.
            let bare = try await chat.accounts.signUp("bare@example.com")
            let reply = try await chat.call("blockUser", as: "Alice", data: #"{"uid":"\#(bare.string("localId"))"}"#)
            #expect(reply.status == 404)
            #expect(reply.body.contains("which is not a registered user"))
            // A caller without a profile is told to write it first.
            let unnamed = try await chat.server.send(
                "POST",
                "/functions/blockUser",
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(bare.string("idToken"))")],
                text: #"{"data":{"uid":"\#(alice)"}}"#
            )
            #expect(unnamed.status == 400)
            #expect(unnamed.body.contains(#""status":"FAILED_PRECONDITION""#))
            #expect(unnamed.body.contains("has no profile"))
            #expect(try await chat.server.get("/blocks") == "null")
            #expect(try await chat.server.get("/blockedSenders") == "null")
        }
    }
}
