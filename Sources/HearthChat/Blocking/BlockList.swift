import HearthCore
import HearthFunctions

/// Where a block lives (`../shared/CONTRACT.md`, `blocks/$uid/$blockedUid`) and the marker the
/// messages rule reads (docs/design.md, "Blocking"). `blockUser` and `unblockUser` write both
/// in one commit, account deletion removes both, `hearth chat check` compares them.
///
/// The marker: `blockedSenders/$chatId/$blockedUid` = the blocker's uid, where `$chatId` is the
/// private chat of the pair (`CreateChat.chatID`). A rule sees `$chatId` and `auth.uid` but not
/// the other party (the id is a hash), so the marker is keyed by what the rule knows. No rule
/// grants a read of `blockedSenders`: nothing a blocked user can read reveals the block.
enum BlockList {
    /// `blocks/$blocker/$blocked`: true while `blocker` blocks `blocked`.
    static func entry(_ blocker: String, _ blocked: String) -> DataPath { DataPath("blocks", blocker, blocked) }

    /// `blocks/$uid`: the user's block list.
    static func list(of uid: String) -> DataPath { DataPath("blocks", uid) }

    /// The top-level key of the markers.
    static let markersKey = "blockedSenders"

    /// `blockedSenders/<private chat of the pair>/$blocked`: present while `blocker` blocks
    /// `blocked`; its value is `blocker`.
    static func marker(_ blocker: String, _ blocked: String) -> DataPath {
        DataPath(markersKey, CreateChat.chatID(blocker, blocked), blocked)
    }

    /// Whether `blocker` blocks `blocked` in `snapshot`.
    static func blocks(_ blocker: String, _ blocked: String, in snapshot: CallableSnapshot) -> Bool {
        snapshot.exists(entry(blocker, blocked))
    }

    /// The writes of `blocker` blocking `blocked`: the entry and its marker.
    static func blocking(_ blocked: String, by blocker: String) -> [DatabaseUpdate] {
        [.set(entry(blocker, blocked), true), .set(marker(blocker, blocked), .string(blocker))]
    }

    /// The writes of `blocker` no longer blocking `blocked`: the entry and its marker go.
    static func unblocking(_ blocked: String, by blocker: String) -> [DatabaseUpdate] {
        [.delete(entry(blocker, blocked)), .delete(marker(blocker, blocked))]
    }
}
