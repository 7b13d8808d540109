public import HearthCore
public import HearthFunctions

/// `acceptChat {chatId}` → `{}`: the caller accepts the conversation request of a private chat
/// someone new started with them: the `request` flag of their chat-list entry goes
/// (`ConversationRequest`). Accepting a chat without a pending request changes nothing and
/// answers `{}` too. `NOT_FOUND` names `chatId` when it is not a private chat of the caller
/// (no such chat, a group, or one the caller is not a member of: all alike, so nobody learns
/// which chats others have) or when the caller's entry is gone (deleted for them; it comes back
/// with the next message, accepted).
public struct AcceptChat: Callable {
    public init() {}

    public var name: String { "acceptChat" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"chatId": "<chat id>"}"#)
        let chatId = try data.key("chatId", of: "chat id")
        let pending = try await request.database.read { snapshot throws(CallableError) -> Bool in
            guard snapshot.node(at: DataPath("chats", chatId, "type"))?.string == "private",
                snapshot.exists(DataPath("members", chatId, uid))
            else {
                throw CallableError(.notFound, "'chatId' names '\(chatId)', which is not a private chat of the caller.")
            }
            guard let entry = snapshot.node(at: DataPath("userChats", uid, chatId)) else {
                throw CallableError(
                    .notFound,
                    "'chatId' names '\(chatId)', which is not in the caller's chat list (deleted for them: it comes back with the next message)."
                )
            }
            return entry.child(ConversationRequest.field) != nil
        }
        // Removing one leaf: a no-op if the entry went meanwhile, so no precondition is needed.
        if pending {
            try await request.database.commit([.delete(DataPath("userChats", uid, chatId, "request"))])
        }
        return .object([])
    }
}
