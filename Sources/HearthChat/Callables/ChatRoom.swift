import HearthCore
import HearthFunctions

/// What the chat callables decide by: a chat's kind, owner, name and roster, read from
/// `chats/$chatId` and `members/$chatId`. Two reads compare equal when none of that changed
/// (read receipts and `lastMessage` are not part of it), which is how a write checks on the
/// writer that its decision still holds.
struct ChatRoom: Hashable, Sendable {
    /// A member's standing: role and when they joined (not their read position).
    struct Member: Hashable, Sendable {
        let role: String?
        let joinedAt: Double?
    }

    let id: String
    let isGroup: Bool
    let owner: String?
    let name: String?
    let members: [String: Member]

    /// The chat `id` as `snapshot` has it, or nil when there is no such chat.
    static func read(_ id: String, in snapshot: CallableSnapshot) -> ChatRoom? {
        guard case .children(let chat, _)? = snapshot.node(at: DataPath("chats", id)) else { return nil }
        var members: [String: Member] = [:]
        if case .children(let roster, _)? = snapshot.node(at: DataPath("members", id)) {
            for (key, member) in zip(roster.keys, roster.nodes) {
                members[key.string] = Member(
                    role: member.child(ChildKey("role"))?.string,
                    joinedAt: member.child(ChildKey("joinedAt"))?.number
                )
            }
        }
        return ChatRoom(
            id: id,
            isGroup: chat[ChildKey("type")]?.string == "group",
            owner: chat[ChildKey("owner")]?.string,
            name: chat[ChildKey("name")]?.string,
            members: members
        )
    }

    /// The chat `id`, for a caller who is one of its members.
    /// - Throws: `NOT_FOUND` naming `chatId` when there is no such chat; `PERMISSION_DENIED`
    ///   when `caller` is not a member.
    static func forMember(
        _ caller: String,
        of id: String,
        in snapshot: CallableSnapshot
    ) throws(CallableError)
        -> ChatRoom
    {
        guard let room = read(id, in: snapshot) else {
            throw CallableError(.notFound, "'chatId' names '\(id)', which is not a chat.")
        }
        guard room.members[caller] != nil else {
            throw CallableError(.permissionDenied, "The caller '\(caller)' is not a member of the chat '\(id)'.")
        }
        return room
    }

    /// - Throws: `INVALID_ARGUMENT` naming `chatId` when the chat is private.
    func requireGroup(for function: String) throws(CallableError) {
        guard isGroup else {
            throw .invalidArgument("'chatId' names the private chat '\(id)'; \(function) works on groups only.")
        }
    }

    /// Whether `snapshot` (a write's precondition) still shows this chat exactly so.
    func isUnchanged(in snapshot: CallableSnapshot) -> Bool {
        Self.read(id, in: snapshot) == self
    }

    /// The member who has been in the chat longest, `excluding` one: earliest `joinedAt`
    /// (a member without one counts as latest), ties by uid in key order.
    func longestStanding(excluding uid: String) -> String? {
        members.filter { $0.key != uid }.min { a, b in
            let (x, y) = (a.value.joinedAt ?? .infinity, b.value.joinedAt ?? .infinity)
            return x != y ? x < y : ChildKey(a.key) < ChildKey(b.key)
        }?.key
    }
}

extension Node {
    /// The string of a string leaf.
    var string: String? {
        if case .leaf(.string(let value), _) = self { return value }
        return nil
    }

    /// The number of a number leaf.
    var number: Double? {
        if case .leaf(.number(let value), _) = self { return value }
        return nil
    }
}
