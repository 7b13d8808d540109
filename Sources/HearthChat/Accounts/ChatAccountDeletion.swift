import HearthCore
import HearthFunctions

/// What deleting an account does to the chat app (`../shared/CONTRACT.md`, "Details that are
/// fixed"): the user leaves every chat they are a member of, found by the membership lookup
/// index (ownership passes on, the last one out deletes a group; one atomic write per chat, as
/// `removeMember`), then their profile goes, and with it their phone-number and name-word
/// index entries (same batch), their chat list and their unread total. The messages they sent
/// stay, with their `sender`; their files under `users/{uid}/` in storage go (queued in the
/// commit that deletes the profile, `FileDeletion`, and done at once); then their
/// presence, contacts, devices and blocks, and the entries naming them in others' contact and
/// block lists (`ChatAccountDeletion+Cascade.swift`). Idempotent: a retry after a failure goes
/// on where it stopped.
struct ChatAccountDeletion: AccountDeletionHandler {
    func accountWillBeDeleted(
        uid: String,
        in database: CallableDatabase,
        files: (any CallableFiles)?
    ) async throws(CallableError) {
        try await accountWillBeDeleted(uid: uid, in: database)
        await files?.deleteFolder(Self.folderPrefix(of: uid))
    }

    /// The user's folder in storage (their avatar, what they uploaded for themselves).
    static func folderPrefix(of uid: String) -> String { "users/\(uid)/" }

    /// The deletion of the user's folder, queued with their profile's.
    static func folder(of uid: String) -> FileDeletion { .folder(folderPrefix(of: uid)) }

    func accountWillBeDeleted(uid: String, in database: CallableDatabase) async throws(CallableError) {
        let chats = try await Self.memberships(of: uid, in: database)
        // Their ringing calls end first (ChatAccountDeletion+Calls.swift).
        try await Self.endRingingCalls(of: uid, in: chats, database: database)
        for chatId in chats {
            try await ChatChange.commit(chat: chatId, in: database) { snapshot throws(CallableError) in
                guard let room = ChatRoom.read(chatId, in: snapshot), room.members[uid] != nil else {
                    return ChatChange()
                }
                return RemoveMember.leaving(uid, room, snapshot)
            }
        }
        // A membership of a chat whose record is gone (nothing to hand over) goes directly.
        let stray = try await Self.memberships(of: uid, in: database)
        try await database.commit(
            [
                .delete(DataPath("users", uid)), .delete(DataPath("userChats", uid)),
                .delete(DataPath("unreadTotals", uid)),
            ] + stray.map { .delete(DataPath("members", $0, uid)) },
            jobs: [Self.folder(of: uid).job]
        )
        try await removeLists(of: uid, in: database)
    }

    /// The chats `uid` is a member of.
    private static func memberships(
        of uid: String,
        in database: CallableDatabase
    ) async throws(CallableError)
        -> [String]
    {
        try await database.read { snapshot in
            snapshot.lookup(MembershipLookup.name, term: uid).map { $0.keys[1].string }
        }
    }
}
