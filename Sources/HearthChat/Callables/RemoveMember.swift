public import HearthCore
public import HearthFunctions
import Synchronization

/// `removeMember {chatId, uid}` → `{}`: the owner removes a member, or a member removes
/// themselves (leaves). Their membership and chat-list entry go, and the entry's unread comes
/// off their total. When the owner leaves, the longest-standing member (earliest `joinedAt`,
/// ties by uid) becomes the owner; when the last member leaves, the group goes with its
/// members and messages, and its files (`chats/{chatId}/`, queued in the same commit as
/// `deleteChat` does: nobody is left who could read them). One atomic write, committed only
/// while the roster, the owner and the entry's unread count are the ones read.
public struct RemoveMember: Callable {
    public init() {}

    public var name: String { "removeMember" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let caller = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"chatId": "<chat id>", "uid": "<uid>"}"#)
        let chatId = try data.key("chatId", of: "chat id")
        let removed = try data.uid("uid")
        let dissolved = Mutex(false)
        try await ChatChange.commit(chat: chatId, in: request.database) { snapshot throws(CallableError) in
            let room = try ChatRoom.forMember(caller, of: chatId, in: snapshot)
            try room.requireGroup(for: "removeMember")
            guard removed == caller || room.owner == caller else {
                throw CallableError(
                    .permissionDenied,
                    "Only the owner of the group '\(chatId)' may remove 'uid' '\(removed)'; members may remove only themselves."
                )
            }
            guard room.members[removed] != nil else {
                throw CallableError(
                    .notFound,
                    "'uid' names '\(removed)', who is not a member of the group '\(chatId)'."
                )
            }
            let change = Self.leaving(removed, room, snapshot)
            dissolved.withLock { $0 = !change.jobs.isEmpty }
            return change
        }
        if dissolved.withLock({ $0 }) { await request.files?.deleteFolder(DeleteChat.folderPrefix(of: chatId)) }
        return .object([])
    }

    /// The change by which `removed` leaves `room`: their membership and chat-list entry go
    /// (the entry's unread off their total); ownership passes to the longest-standing member;
    /// the last one out deletes the chat. Committed only while the room is as read.
    static func leaving(_ removed: String, _ room: ChatRoom, _ snapshot: CallableSnapshot) -> ChatChange {
        let chatId = room.id
        var change = ChatChange()
        change.require { room.isUnchanged(in: $0) }
        UnreadTotals.removeEntry(of: removed, in: chatId, snapshot, &change)
        if let heir = room.longestStanding(excluding: removed) {
            change.updates.append(.delete(DataPath("members", chatId, removed)))
            if room.owner == removed {
                change.updates.append(.set(DataPath("chats", chatId, "owner"), .string(heir)))
                change.updates.append(.set(DataPath("members", chatId, heir, "role"), "owner"))
            }
        } else {
            change.updates += DeleteChat.chatItself(chatId)
            change.jobs.append(DeleteChat.folder(of: chatId).job)
        }
        return change
    }
}
