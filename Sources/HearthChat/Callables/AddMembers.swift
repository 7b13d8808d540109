public import HearthCore
public import HearthFunctions

/// `addMembers {chatId, participants}` → `{}`: any member of a group adds registered users.
/// Duplicates, the caller and those already members are ignored; each new member gets a
/// membership (`role: "member"`, `joinedAt` the commit's time) and a chat-list entry (`unread`
/// 0, `name` the group's). The group stays within `createGroup`'s size (`maxMembers`). One
/// atomic write, committed only while the roster and the name are the ones read. A participant
/// who blocks the caller is `NOT_FOUND`, as an unregistered one (`BlockList`).
public struct AddMembers: Callable {
    /// The most members a group has: its owner and as many participants as `createGroup` takes.
    public static let maxMembers = CreateGroup.maxParticipants + 1

    public init() {}

    public var name: String { "addMembers" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"chatId": "<chat id>", "participants": ["<uid>"]}"#)
        let chatId = try data.key("chatId", of: "chat id")
        let listed = try Self.listed(data.array("participants"), caller: uid)
        // Refusals about the chat come first; members already in it are ignored, registered or not.
        let before = try await request.database.read { snapshot throws(CallableError) in
            let room = try ChatRoom.forMember(uid, of: chatId, in: snapshot)
            try room.requireGroup(for: "addMembers")
            return room
        }
        let candidates = listed.filter { before.members[$0] == nil }
        let names = try await RegisteredUsers.displayNames(of: candidates, in: request, seenBy: uid)
        let unknown = candidates.filter { names[$0] == nil }
        guard unknown.isEmpty else {
            let shown = unknown.prefix(10).map { "'\($0)'" }.joined(separator: ", ")
            let more = unknown.count > 10 ? " and \(unknown.count - 10) more" : ""
            throw CallableError(.notFound, "'participants' names \(shown)\(more), not registered users.")
        }
        try await ChatChange.commit(chat: chatId, in: request.database) { snapshot throws(CallableError) in
            let room = try ChatRoom.forMember(uid, of: chatId, in: snapshot)
            try room.requireGroup(for: "addMembers")
            let joining = candidates.filter { room.members[$0] == nil }
            guard room.members.count + joining.count <= Self.maxMembers else {
                throw .invalidArgument(
                    "'participants' would make the group '\(chatId)' \(room.members.count + joining.count) members; the limit is \(Self.maxMembers)."
                )
            }
            var change = ChatChange()
            guard !joining.isEmpty else { return change }
            change.require { room.isUnchanged(in: $0) }
            let groupName = JSONValue.string(room.name ?? "")
            for member in joining {
                change.updates.append(
                    .set(DataPath("members", chatId, member), ["role": "member", "joinedAt": .serverTimestamp])
                )
                change.updates.append(.set(UnreadTotals.entry(member, chatId), ["unread": 0, "name": groupName]))
            }
            return change
        }
        return .object([])
    }

    /// The listed uids other than the caller, each once, in the order given (at least one,
    /// at most `CreateGroup.maxParticipants` listed).
    static func listed(_ participants: [JSONValue], caller: String) throws(CallableError) -> [String] {
        guard participants.count <= CreateGroup.maxParticipants else {
            throw .invalidArgument(
                "'participants' lists \(participants.count) users; the limit is \(CreateGroup.maxParticipants)."
            )
        }
        guard !participants.isEmpty else { throw .invalidArgument("'participants' must name at least 1 user.") }
        var seen: Set<String> = [caller]
        var uids: [String] = []
        for (index, value) in participants.enumerated() {
            let uid = try CallData.uid(value, field: "participants[\(index)]")
            if seen.insert(uid).inserted { uids.append(uid) }
        }
        return uids
    }
}
