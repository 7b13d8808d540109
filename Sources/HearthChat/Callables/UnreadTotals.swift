import HearthCore
import HearthFunctions

/// A user's chat-list entry (`userChats/$uid/$chatId`) and their `unreadTotals/$uid`, and
/// taking an entry's unread count off the total without losing a message counted concurrently.
enum UnreadTotals {
    static func entry(_ uid: String, _ chatId: String) -> DataPath { DataPath("userChats", uid, chatId) }

    static func total(_ uid: String) -> DataPath { DataPath("unreadTotals", uid) }

    /// The entry's `unread` (a missing or negative count is 0), or nil without an entry.
    static func unread(of uid: String, in chatId: String, _ snapshot: CallableSnapshot) -> Double? {
        guard let entry = snapshot.node(at: entry(uid, chatId)) else { return nil }
        return max(0, entry.child(ChildKey("unread"))?.number ?? 0)
    }

    /// The user's total (missing or not a number: 0).
    static func total(of uid: String, _ snapshot: CallableSnapshot) -> Double {
        snapshot.node(at: total(uid))?.number ?? 0
    }

    /// Adds to `change` taking `amount` off the user's total, never below 0: an increment by
    /// `-amount` while the total (on the writer) is at least `amount`, so messages counted in
    /// between stay counted; else 0, while it is at most `amount`. `seenTotal` is the total
    /// the decision read. Nothing for 0.
    static func subtract(_ amount: Double, from uid: String, seenTotal: Double, in change: inout ChatChange) {
        guard amount > 0 else { return }
        if seenTotal >= amount {
            change.updates.append(.increment(total(uid), by: -amount))
            change.require { total(of: uid, $0) >= amount }
        } else {
            change.updates.append(.set(total(uid), 0))
            change.require { total(of: uid, $0) <= amount }
        }
    }

    /// Requires the entry's `unread` on the writer to be `unread` (nil: no entry).
    static func requireUnread(_ unread: Double?, of uid: String, in chatId: String, _ change: inout ChatChange) {
        change.require { Self.unread(of: uid, in: chatId, $0) == unread }
    }

    /// Adds to `change` removing the user's entry and taking its unread off their total.
    static func removeEntry(of uid: String, in chatId: String, _ snapshot: CallableSnapshot, _ change: inout ChatChange)
    {
        let unread = unread(of: uid, in: chatId, snapshot)
        requireUnread(unread, of: uid, in: chatId, &change)
        guard let unread else { return }
        change.updates.append(.delete(entry(uid, chatId)))
        subtract(unread, from: uid, seenTotal: total(of: uid, snapshot), in: &change)
    }
}
