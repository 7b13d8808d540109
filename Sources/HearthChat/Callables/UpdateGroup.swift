public import HearthCore
public import HearthFunctions

/// `updateGroup {chatId, name?, photoUrl?}` → `{}`: the owner renames a group or changes its
/// photo. The name is trimmed and 1–25 characters as for `createGroup`; a new name also goes to
/// every member's chat-list entry (entries a member removed stay removed). `photoUrl: null`
/// removes the photo; an absent field is left as it is; at least one must be given. One atomic
/// write, committed only while the owner, the name and the roster are the ones read.
public struct UpdateGroup: Callable {
    public init() {}

    public var name: String { "updateGroup" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"chatId": "<chat id>", "name": "Hikers"}"#)
        let chatId = try data.key("chatId", of: "chat id")
        let newName = data.fields["name"] == nil ? nil : try CreateGroup.groupName(data.string("name"))
        let photo = try Self.photo(data)
        guard newName != nil || photo != nil else {
            throw .invalidArgument(
                "Give 'name' or 'photoUrl' (null removes the photo) to change the group '\(chatId)'."
            )
        }
        try await ChatChange.commit(chat: chatId, in: request.database) { snapshot throws(CallableError) in
            let room = try ChatRoom.forMember(uid, of: chatId, in: snapshot)
            try room.requireGroup(for: "updateGroup")
            guard room.owner == uid else {
                throw CallableError(
                    .permissionDenied,
                    "Only the owner '\(room.owner ?? "")' may change the group '\(chatId)'; the caller '\(uid)' is not."
                )
            }
            var change = ChatChange()
            change.require { room.isUnchanged(in: $0) }
            let chat = DataPath("chats", chatId)
            if let photo { change.updates.append(.set(chat.child(ChildKey("photoUrl")), photo)) }
            if let newName {
                change.updates.append(.set(chat.child(ChildKey("name")), .string(newName)))
                for member in room.members.keys {
                    let entry = UnreadTotals.entry(member, chatId)
                    let listed = snapshot.exists(entry)
                    change.require { $0.exists(entry) == listed }
                    if listed { change.updates.append(.set(entry.child(ChildKey("name")), .string(newName))) }
                }
            }
            return change
        }
        return .object([])
    }

    /// The new `photoUrl`: nil to leave it, `.null` to remove it, else the URL.
    static func photo(_ data: CallData) throws(CallableError) -> JSONValue? {
        guard let value = data.fields["photoUrl"] else { return nil }
        if value == .null { return .null }
        return try data.optionalString("photoUrl", maxLength: CreateGroup.maxPhotoURLLength).map { .string($0) }
    }
}
