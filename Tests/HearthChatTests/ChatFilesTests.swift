import Foundation
import HearthTestSupport
import Testing

/// The chat app removes the files its deletions leave behind (CONTRACT.md, "Attachments" and
/// account deletion): a deleted message's attachment, a chat deleted for everyone's folder (or
/// left by its last member), a deleted account's `users/{uid}/`. Each deletion is queued in the
/// database change's commit and done at once; the queue is empty afterwards
/// (`hearth_file_deletions_pending`). After a crash: `ChatFilesRepairTests`.
@Suite struct ChatFilesTests {
    /// Waits until no deletion is queued; fails with the gauge's last reading otherwise.
    static func expectNoPendingDeletion(
        _ server: TestServer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let pending = try await eventually({ try await server.pendingFileDeletions() }, until: { $0 == 0 })
        #expect(pending == 0, "queued file deletions left", sourceLocation: sourceLocation)
    }

    @Test func deletingAMessageRemovesItsAttachmentAndNothingElse() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group()
            let photo = try await chat.server.upload("chats/\(group)/photo.png")
            _ = try await chat.server.upload("chats/\(group)/kept.png")
            // An attachment URL naming another chat's file is not this message's to remove.
            let elsewhere = try await chat.server.upload("chats/other/x.png")
            let message = try await chat.deliver(from: "Alice", in: group, to: ["Bob"])
            try await chat.server.put("/messages/\(group)/\(message)/attachmentUrl", "\"\(photo)\"")
            let stray = try await chat.deliver(from: "Alice", in: group, to: ["Bob"])
            try await chat.server.put("/messages/\(group)/\(stray)/attachmentUrl", "\"\(elsewhere)\"")
            for id in [message, stray] {
                let reply = try await chat.call(
                    "deleteMessage",
                    as: "Alice",
                    data: #"{"chatId":"\#(group)","messageId":"\#(id)"}"#
                )
                #expect(reply.status == 200, "\(reply.body)")
            }
            #expect(try await !chat.server.objectExists("chats/\(group)/photo.png"))
            #expect(try await chat.server.objectExists("chats/\(group)/kept.png"))
            #expect(try await chat.server.objectExists("chats/other/x.png"))
            try await Self.expectNoPendingDeletion(chat.server)
        }
    }

    @Test func deletingAChatForEveryoneRemovesItsFolder() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group()
            _ = try await chat.server.upload("chats/\(group)/a.png")
            _ = try await chat.server.upload("chats/\(group)/sub/b.png")
            _ = try await chat.server.upload("chats/\(group)x/c.png")
            let forMe = try await chat.call("deleteChat", as: "Bob", data: #"{"chatId":"\#(group)"}"#)
            #expect(forMe.status == 200)
            #expect(try await chat.server.objectExists("chats/\(group)/a.png"), "deleting for oneself keeps the files")
            let reply = try await chat.call(
                "deleteChat",
                as: "Alice",
                data: #"{"chatId":"\#(group)","forEveryone":true}"#
            )
            #expect(reply.status == 200, "\(reply.body)")
            #expect(try await !chat.server.objectExists("chats/\(group)/a.png"))
            #expect(try await !chat.server.objectExists("chats/\(group)/sub/b.png"))
            #expect(try await chat.server.objectExists("chats/\(group)x/c.png"))
            try await Self.expectNoPendingDeletion(chat.server)
        }
    }

    @Test func theLastMemberLeavingAGroupRemovesItsFolder() async throws {
        try await ChatServer.with { chat in
            let group = try await chat.group()
            _ = try await chat.server.upload("chats/\(group)/a.png")
            for name in ["Bob", "Carol"] { try await chat.leave(name, group) }
            #expect(try await chat.server.objectExists("chats/\(group)/a.png"), "a member is left: the files stay")
            try await chat.leave("Alice", group)
            #expect(try await chat.server.get("/chats/\(group)") == "null")
            #expect(try await !chat.server.objectExists("chats/\(group)/a.png"))
            try await Self.expectNoPendingDeletion(chat.server)
        }
    }

    @Test func deletingAnAccountRemovesTheUsersFolder() async throws {
        try await ChatServer.with { chat in
            let (alice, bob) = (chat.uid("Alice"), chat.uid("Bob"))
            _ = try await chat.server.upload("users/\(alice)/avatar.png")
            _ = try await chat.server.upload("users/\(alice)/old/1.png")
            _ = try await chat.server.upload("users/\(bob)/avatar.png")
            try await chat.deleteAccount("Alice")
            #expect(try await !chat.server.objectExists("users/\(alice)/avatar.png"))
            #expect(try await !chat.server.objectExists("users/\(alice)/old/1.png"))
            #expect(try await chat.server.objectExists("users/\(bob)/avatar.png"))
            try await Self.expectNoPendingDeletion(chat.server)
        }
    }
}
