import HearthCore
import HearthDatabase

/// What one new message changes in its members' chat lists: one shallow read of the member
/// list (done by the caller) and, per member, whether their entry still exists (answered by
/// the writer's memory of the entry's `lastMessageAt` once a message set it, else a point read).
/// The locations are `located` (`FanoutPaths`), the same ones for every message of the chat.
struct NewMessageFanout {
    let chat: ChildKey
    let members: [ChildKey]
    /// Who sent it (nil: nobody known, every member counts it).
    let sender: String?
    /// The `lastMessageAt` every member's entry gets; nil when the message is not the newest
    /// (entries keep the newest one's, which it set).
    let sentAt: Double?
    /// The newest message's time, for an entry recreated by a message that is not the newest.
    let newestSentAt: () -> Double
    let snapshot: TreeChange.Snapshot
    /// Each of `members`' locations, in the same order (`FanoutPaths.paths`).
    let located: [FanoutPaths.Member]

    func updates() -> [DerivedUpdate] {
        var updates: [DerivedUpdate] = []
        // Room for the write it is combined with too (a few entries put before these).
        updates.reserveCapacity(members.count * 3 + 4)
        var names = EntryNames(chat: chat, members: members, snapshot: snapshot)
        let sentAtValue = sentAt.map { NewValue(node: .leaf(.number($0), priority: nil)) }
        // One value for every counter's +1 (not an array of server values per counter).
        let plusOne = DerivedUpdate.increment(.root, by: 1).value
        // By index: a walk over the zipped lists copied (retained) each key and member.
        for index in 0..<min(members.count, located.count) {
            let paths = located[index]
            let isSender = members[index].string == sender
            // The entry's fields next to each other: their keys share the entry's encoding.
            if !isSender { updates.append(DerivedUpdate(path: paths.unread, value: plusOne)) }
            if let sentAtValue { updates.append(DerivedUpdate(path: paths.lastMessageAt.path, value: sentAtValue)) }
            if !isSender { updates.append(DerivedUpdate(path: paths.unreadTotal, value: plusOne)) }
            // An entry without its name is gone ("delete chat" for me) or never made: the
            // message brings the chat back into the member's list. Its `lastMessageAt`, which
            // every message sets, answers first: the writer remembers it, with no read.
            if !snapshot.hasLeaf(at: paths.lastMessageAt), !snapshot.hasLeaf(at: paths.name) {
                if let name = names.name(for: members[index]) {
                    updates.append(.set(paths.name.path, .leaf(.string(name), priority: nil)))
                }
                if isSender {
                    updates.append(.set(paths.unread, .leaf(.number(0), priority: nil)))
                }
                if sentAt == nil {
                    updates.append(.set(paths.lastMessageAt.path, .leaf(.number(newestSentAt()), priority: nil)))
                }
            }
        }
        return updates
    }
}

/// The `name` of a member's chat-list entry: the group's name, or in a private chat the other
/// party's displayName. Read only for entries being recreated, the group's name once.
struct EntryNames {
    let chat: ChildKey
    let members: [ChildKey]
    let snapshot: TreeChange.Snapshot
    private var groupName: String??

    init(chat: ChildKey, members: [ChildKey], snapshot: TreeChange.Snapshot) {
        self.chat = chat
        self.members = members
        self.snapshot = snapshot
    }

    mutating func name(for member: ChildKey) -> String? {
        let chatPath = ChatPaths.chat(chat)
        if case .string("private")? = snapshot.leaf(at: chatPath.child(ChatPaths.Key.type)) {
            guard let other = members.first(where: { $0 != member }) else { return nil }
            guard case .string(let name)? = snapshot.leaf(at: ChatPaths.displayName(other)) else { return nil }
            return name
        }
        if let groupName { return groupName }
        var name: String?
        if case .string(let text)? = snapshot.leaf(at: chatPath.child(ChatPaths.Key.name)) { name = text }
        groupName = .some(name)
        return name
    }
}
