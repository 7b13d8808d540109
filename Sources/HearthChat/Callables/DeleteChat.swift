public import HearthCore
public import HearthFunctions

/// `deleteChat {chatId, forEveryone?}` → `{}`.
/// - For me (the default): the caller's chat-list entry goes and its unread comes off their
///   total; they stay a member (the chat comes back with the next message).
/// - For everyone: the owner of a group or either party of a private chat deletes the chat,
///   its members, its messages and every member's entry, each entry's unread coming off that
///   member's total; and the chat's files in storage (`chats/{chatId}/`): their deletion is
///   queued in the same commit (`FileDeletion`, carried out even after a crash) and done at
///   once.
/// One atomic write, committed only while the roster and the unread counts are the ones read.
public struct DeleteChat: Callable {
    public init() {}

    public var name: String { "deleteChat" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"chatId": "<chat id>", "forEveryone": false}"#)
        let chatId = try data.key("chatId", of: "chat id")
        let forEveryone = try data.optionalBool("forEveryone")
        try await ChatChange.commit(chat: chatId, in: request.database) { snapshot throws(CallableError) in
            let room = try ChatRoom.forMember(uid, of: chatId, in: snapshot)
            var change = ChatChange()
            guard forEveryone else {
                UnreadTotals.removeEntry(of: uid, in: chatId, snapshot, &change)
                return change
            }
            guard !room.isGroup || room.owner == uid else {
                throw CallableError(
                    .permissionDenied,
                    "Only the owner of the group '\(chatId)' may delete it 'forEveryone'; the caller '\(uid)' may delete it for themselves."
                )
            }
            change.require { room.isUnchanged(in: $0) }
            for member in room.members.keys {
                UnreadTotals.removeEntry(of: member, in: chatId, snapshot, &change)
            }
            change.updates += Self.chatItself(chatId)
            change.jobs = [Self.folder(of: chatId).job]
            return change
        }
        if forEveryone { await request.files?.deleteFolder(Self.folderPrefix(of: chatId)) }
        return .object([])
    }

    /// The chat's folder in storage, where its members' attachments are.
    static func folderPrefix(of chatId: String) -> String { "chats/\(chatId)/" }

    /// The deletion of the chat's folder, queued with the chat's own.
    static func folder(of chatId: String) -> FileDeletion { .folder(folderPrefix(of: chatId)) }

    /// Deleting the chat, its members and its messages.
    static func chatItself(_ chatId: String) -> [DatabaseUpdate] {
        [
            .delete(DataPath("chats", chatId)), .delete(DataPath("members", chatId)),
            .delete(DataPath("messages", chatId)),
        ]
    }
}
