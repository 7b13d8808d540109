public import HearthCore
public import HearthFunctions
import Synchronization

/// `deleteMessage {chatId, messageId}` → `{}`: a member deletes a message they sent, for
/// everyone. Unread counters stay as they are; the message trigger moves the chat's
/// `lastMessage`. Committed only while the message is still there. Its attachment, when
/// `attachmentUrl` is a download URL of this server's storage under `chats/{chatId}/`, goes:
/// its deletion is queued in the same commit (`FileDeletion`, carried out even after a crash)
/// and done at once, so the file is gone when the call returns.
public struct DeleteMessage: Callable {
    public init() {}

    public var name: String { "deleteMessage" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"chatId": "<chat id>", "messageId": "<message id>"}"#)
        let chatId = try data.key("chatId", of: "chat id")
        let messageId = try data.key("messageId", of: "message id")
        let attachment = Mutex<String?>(nil)
        try await ChatChange.commit(chat: chatId, in: request.database) { snapshot throws(CallableError) in
            _ = try ChatRoom.forMember(uid, of: chatId, in: snapshot)
            let message = DataPath("messages", chatId, messageId)
            guard let sent = snapshot.node(at: message) else {
                throw CallableError(
                    .notFound,
                    "'messageId' names '\(messageId)', which is not a message of the chat '\(chatId)'."
                )
            }
            guard sent.child(ChildKey("sender"))?.string == uid else {
                throw CallableError(
                    .permissionDenied,
                    "'messageId' names '\(messageId)', which the caller '\(uid)' did not send; only its sender may delete it."
                )
            }
            let url = sent.child(ChildKey("attachmentUrl"))?.string
            attachment.withLock { $0 = url }
            var change = ChatChange(updates: [.delete(message)])
            if let url { change.jobs = [FileDeletion.object(downloadURL: url, under: "chats/\(chatId)/").job] }
            change.require { $0.exists(message) }
            return change
        }
        if let url = attachment.withLock({ $0 }) {
            await request.files?.deleteObject(downloadURL: url, under: "chats/\(chatId)/")
        }
        return .object([])
    }
}
