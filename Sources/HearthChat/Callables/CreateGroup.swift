public import HearthCore
public import HearthFunctions

/// `createGroup {name, participants, photoUrl?}` → `{chatId}`: a new group (push id) whose
/// owner is the caller and whose members are the caller and the participants (duplicates and
/// the caller dropped; at least 2 others, each a registered user). One atomic write holds the
/// chat, every membership and every member's chat-list entry (`unread` 0, `name` = the group's
/// name). A participant who blocks the caller is `NOT_FOUND`, as an unregistered one (`BlockList`).
public struct CreateGroup: Callable {
    /// The longest group name, in user-perceived characters after trimming.
    public static let maxNameLength = 25
    /// The most participants one call may list.
    public static let maxParticipants = 500
    /// The longest `photoUrl` (as for profiles).
    public static let maxPhotoURLLength = 2048

    static let ids = PushIDGenerator()

    public init() {}

    public var name: String { "createGroup" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"name": "Hikers", "participants": ["<uid>", "<uid>"]}"#)
        let groupName = try Self.groupName(data.string("name"))
        let photoURL = try data.optionalString("photoUrl", maxLength: Self.maxPhotoURLLength)
        let others = try Self.others(data.array("participants"), caller: uid)
        let names = try await RegisteredUsers.displayNames(of: others, in: request, seenBy: uid)
        if let unknown = others.first(where: { names[$0] == nil }) {
            throw RegisteredUsers.notFound(unknown, field: "participants")
        }
        let chatId = Self.ids.next()
        var chat: [(String, JSONValue)] = [
            ("type", "group"), ("name", .string(groupName)), ("owner", .string(uid)), ("createdAt", .serverTimestamp),
        ]
        if let photoURL { chat.append(("photoUrl", .string(photoURL))) }
        var updates: [DatabaseUpdate] = [.set(DataPath("chats", chatId), .object(chat))]
        for member in [uid] + others {
            let role: JSONValue = member == uid ? "owner" : "member"
            updates.append(.set(DataPath("members", chatId, member), ["role": role, "joinedAt": .serverTimestamp]))
            updates.append(.set(DataPath("userChats", member, chatId), ["unread": 0, "name": .string(groupName)]))
        }
        try await request.database.commit(updates)
        return ["chatId": .string(chatId)]
    }

    /// `name` trimmed; 1 to 25 user-perceived characters.
    static func groupName(_ raw: String) throws(CallableError) -> String {
        let trimmed = raw.trimmingWhitespace()
        guard (1...maxNameLength).contains(trimmed.count) else {
            throw .invalidArgument(
                "'name' must be 1 to \(maxNameLength) characters after trimming; '\(trimmed.prefix(40))' has \(trimmed.count)."
            )
        }
        return trimmed
    }

    /// The participants other than the caller, each once, in the order given.
    static func others(_ participants: [JSONValue], caller: String) throws(CallableError) -> [String] {
        guard participants.count <= maxParticipants else {
            throw .invalidArgument("'participants' lists \(participants.count) users; the limit is \(maxParticipants).")
        }
        var seen: Set<String> = [caller]
        var others: [String] = []
        for (index, value) in participants.enumerated() {
            let uid = try CallData.uid(value, field: "participants[\(index)]")
            if seen.insert(uid).inserted { others.append(uid) }
        }
        guard others.count >= 2 else {
            throw .invalidArgument(
                "'participants' must name at least 2 other registered users besides the caller; it names \(others.count)."
            )
        }
        return others
    }
}

extension String {
    /// Without leading and trailing whitespace and newlines (Unicode's White_Space).
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[start...end])
    }
}
