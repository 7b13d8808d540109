import Crypto
public import HearthCore
public import HearthFunctions

/// `createChat {participant: uid}` → `{chatId}`: the private chat of the caller and
/// `participant`. Its id is derived from the two uids, so every call from either side names
/// the same chat; it is created by one atomic write that commits only while `chats/<id>` does
/// not exist (judged on the namespace's writer), so concurrent calls create it once. The write
/// holds the chat, both memberships and both chat-list entries (`unread` 0, `name` = the other
/// party's display name; the other's with `request: true` when the two are strangers, see
/// `create`). A caller whose own entry is gone (deleteChat for me) gets it back, as it was made
/// (no request: the caller asked for the chat). A participant who blocks the caller is
/// `NOT_FOUND`, as an unregistered one (`BlockList`).
public struct CreateChat: Callable {
    public init() {}

    public var name: String { "createChat" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"participant": "<uid>"}"#)
        let other = try data.uid("participant")
        guard other != uid else {
            throw .invalidArgument("'participant' is the caller '\(uid)': a private chat needs another user.")
        }
        let names = try await RegisteredUsers.displayNames(of: [uid, other], in: request, seenBy: uid)
        guard let otherName = names[other] else { throw RegisteredUsers.notFound(other, field: "participant") }
        let callerName = try RegisteredUsers.callerName(uid, in: names)
        let chatId = Self.chatID(uid, other)
        let created = try await Self.create(chatId, by: uid, callerName, with: other, otherName, in: request.database)
        if !created {
            // It exists: put it back on the caller's list if they removed it (and are a member).
            let entry = DataPath("userChats", uid, chatId)
            let membership = DataPath("members", chatId, uid)
            try await request.database.commit(
                [.set(entry, ["unread": 0, "name": .string(otherName)])],
                when: { $0.exists(membership) && !$0.exists(entry) }
            )
        }
        return ["chatId": .string(chatId)]
    }

    /// Creates the chat unless it exists, in one write committed only while `chats/<id>` does
    /// not exist. Between strangers (neither has the other in contacts) the other party's entry
    /// carries `request: true` (`ConversationRequest`); the write also requires that this is
    /// still so on the writer, and decides again when a contact was added meanwhile.
    /// - Returns: false when the chat exists.
    private static func create(
        _ chatId: String,
        by uid: String,
        _ callerName: String,
        with other: String,
        _ otherName: String,
        in database: CallableDatabase
    ) async throws(CallableError) -> Bool {
        let chat = DataPath("chats", chatId)
        for _ in 0..<ChatChange.maxAttempts {
            let strangers = try await database.read { ContactList.areStrangers(uid, other, in: $0) }
            let otherEntry: JSONValue =
                strangers
                ? ["unread": 0, "name": .string(callerName), "request": true]
                : ["unread": 0, "name": .string(callerName)]
            let created = try await database.commit(
                [
                    .set(chat, ["type": "private", "owner": .string(uid), "createdAt": .serverTimestamp]),
                    .set(DataPath("members", chatId, uid), ["role": "owner", "joinedAt": .serverTimestamp]),
                    .set(DataPath("members", chatId, other), ["role": "member", "joinedAt": .serverTimestamp]),
                    .set(DataPath("userChats", uid, chatId), ["unread": 0, "name": .string(otherName)]),
                    .set(DataPath("userChats", other, chatId), otherEntry),
                ],
                when: { !$0.exists(chat) && ContactList.areStrangers(uid, other, in: $0) == strangers }
            )
            if created { return true }
            if try await database.read({ $0.exists(chat) }) { return false }
        }
        throw CallableError(
            .aborted,
            "The contacts of the caller '\(uid)' and 'participant' '\(other)' kept changing while this call ran; call again."
        )
    }

    /// The private chat id of two users, the same whichever calls: `p` and the first 128 bits of
    /// SHA-256 of the two uids in byte order (a NUL between them, which keys cannot contain),
    /// in hex.
    static func chatID(_ a: String, _ b: String) -> String {
        let (first, second) = a.utf8.lexicographicallyPrecedes(b.utf8) ? (a, b) : (b, a)
        let digest = SHA256.hash(data: Array(first.utf8) + [0] + Array(second.utf8))
        let hex = digest.prefix(16).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }
        return "p" + hex.joined()
    }
}
