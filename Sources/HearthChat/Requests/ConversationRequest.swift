import HearthCore
import HearthDatabase

/// A conversation request (`../shared/CONTRACT.md`, "Conversation requests"): `request: true`
/// on the chat-list entry of the user a stranger started a private chat with. Set only by the
/// commit of `createChat` that creates the chat, when neither party has the other in contacts
/// (`ContactList.areStrangers`, judged on the writer). Removed, in the commit that causes it,
/// when the flag's holder accepts (`acceptChat`), replies (`MessageTrigger`, through
/// `clearedByReply`), or adds the other party as a contact (`ContactAddedTrigger`). Nothing
/// else writes it: the message trigger sets an entry's fields one by one and never the whole
/// entry, so it neither loses a flag nor brings one back; an entry deleted for me goes with its
/// flag, and a chat coming back with the next message comes back accepted (docs/design.md,
/// "Contacts and conversation requests").
enum ConversationRequest {
    /// The flag's key in a chat-list entry.
    static let field = ChildKey("request")

    /// `userChats/$uid/$chatId/request`.
    static func flag(of uid: ChildKey, in chat: ChildKey) -> DataPath {
        ChatPaths.entry(uid, chat, field)
    }

    /// The update removing the flag at `flag` when `snapshot` has one there (one point read).
    static func clearing(_ flag: DataPath, in snapshot: TreeChange.Snapshot) -> [DerivedUpdate] {
        snapshot.leaf(at: flag) != nil ? [.set(flag, nil)] : []
    }

    /// What a new message of `sender` into `chat` clears: the sender's own flag (a reply
    /// accepts the request). Only a private chat carries flags, and it never has more than two
    /// members, so a larger chat reads nothing: a group's message costs no read for this.
    static func clearedByReply(
        from sender: String?,
        in chat: ChildKey,
        memberCount: Int,
        snapshot: TreeChange.Snapshot
    ) -> [DerivedUpdate] {
        guard let sender, memberCount <= 2 else { return [] }
        return clearing(flag(of: ChildKey(sender), in: chat), in: snapshot)
    }
}
