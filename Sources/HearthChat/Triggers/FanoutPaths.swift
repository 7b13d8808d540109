import HearthCore
import HearthDatabase
import Synchronization

/// The locations a chat's new message writes for each member, made once per chat and member
/// list: every message of a chat writes the same few hundred, so they are built (and the ones
/// it reads prepared, `TreeLocation`) once rather than for every message; the writer finds a
/// list of updates at the same paths as before ready-made. A memo of pure values, shared by the
/// namespaces' writers.
final class FanoutPaths: Sendable {
    /// One member's locations: a class, so that a message's walk over its members copies one
    /// reference each, not the eight its paths and keys hold.
    final class Member: Sendable {
        let unread: DataPath
        let lastMessageAt: TreeLocation
        let name: TreeLocation
        let unreadTotal: DataPath
        /// `unreadTotal`, prepared: a push's badge reads it.
        let unreadTotalLocation: TreeLocation

        init(
            unread: DataPath,
            lastMessageAt: TreeLocation,
            name: TreeLocation,
            unreadTotal: DataPath,
            unreadTotalLocation: TreeLocation
        ) {
            self.unread = unread
            self.lastMessageAt = lastMessageAt
            self.name = name
            self.unreadTotal = unreadTotal
            self.unreadTotalLocation = unreadTotalLocation
        }
    }

    /// Members kept at most, over all chats (a new chat past it starts over): about 400 bytes
    /// each.
    static let capacity = 20_000

    /// A chat of a namespace.
    private struct Chat: Hashable {
        let namespace: String
        let chat: ChildKey
    }

    private struct Kept {
        var chats: [Chat: (members: [ChildKey], paths: [Member])] = [:]
        var members = 0
    }

    private let kept = Mutex(Kept())

    /// The locations of each of `members` in `chat` of `namespace` (the one `snapshot` reads),
    /// in the same order.
    func paths(namespace: String, chat: ChildKey, members: [ChildKey], snapshot: TreeChange.Snapshot) -> [Member] {
        let key = Chat(namespace: namespace, chat: chat)
        if let found = kept.withLock({ $0.chats[key] }), found.members == members { return found.paths }
        let made = members.map { member in
            Member(
                unread: ChatPaths.entry(member, chat, ChatPaths.Key.unread),
                lastMessageAt: snapshot.prepare(ChatPaths.entry(member, chat, ChatPaths.Key.lastMessageAt)),
                name: snapshot.prepare(ChatPaths.entry(member, chat, ChatPaths.Key.name)),
                unreadTotal: ChatPaths.unreadTotal(member),
                unreadTotalLocation: snapshot.prepare(ChatPaths.unreadTotal(member))
            )
        }
        guard members.count <= Self.capacity else { return made }
        kept.withLock { kept in
            if let old = kept.chats[key] { kept.members -= old.members.count }
            if kept.members + members.count > Self.capacity {
                kept.chats.removeAll(keepingCapacity: true)
                kept.members = 0
            }
            kept.chats[key] = (members, made)
            kept.members += members.count
        }
        return made
    }
}
