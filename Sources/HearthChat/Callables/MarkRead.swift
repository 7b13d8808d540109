public import HearthCore
public import HearthFunctions
import Synchronization

/// `markRead {chatId}` → `{unread: 0, unreadTotal}`: the caller (a member) has read the chat.
/// One atomic write sets their entry's `unread` to 0, takes what it was off
/// `unreadTotals/$uid` (never below 0) and sets `lastReadAt` (the commit's time) on their entry
/// and on their membership, the read receipt others see. The write commits only while the
/// entry's `unread` is still the one read and the caller still a member (judged on the writer),
/// so a message counted in between is either read by this call or left counted, never lost.
/// A caller whose entry is gone (deleteChat for me) gets only the read receipt: the chat does
/// not come back to their list without a message. `unreadTotal` is the caller's total as this
/// write left it.
public struct MarkRead: Callable {
    public init() {}

    public var name: String { "markRead" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"chatId": "<chat id>"}"#)
        let chatId = try data.key("chatId", of: "chat id")
        let totalAfter = TotalAfter()
        try await ChatChange.commit(chat: chatId, in: request.database) { snapshot throws(CallableError) in
            _ = try ChatRoom.forMember(uid, of: chatId, in: snapshot)
            var change = ChatChange()
            let membership = DataPath("members", chatId, uid)
            change.require { $0.exists(membership) }
            change.updates.append(.set(membership.child(ChildKey("lastReadAt")), .serverTimestamp))
            let unread = UnreadTotals.unread(of: uid, in: chatId, snapshot)
            UnreadTotals.requireUnread(unread, of: uid, in: chatId, &change)
            if let unread {
                let entry = UnreadTotals.entry(uid, chatId)
                change.updates.append(.set(entry.child(ChildKey("unread")), 0))
                change.updates.append(.set(entry.child(ChildKey("lastReadAt")), .serverTimestamp))
                UnreadTotals.subtract(
                    unread,
                    from: uid,
                    seenTotal: UnreadTotals.total(of: uid, snapshot),
                    in: &change
                )
            }
            change.require { writer in
                totalAfter.note(max(0, UnreadTotals.total(of: uid, writer) - (unread ?? 0)))
                return true
            }
            return change
        }
        return ["unread": 0, "unreadTotal": .number(totalAfter.value)]
    }
}

/// The caller's total as the committed write left it, noted by the write's last precondition
/// check on the writer (the one that decided).
private final class TotalAfter: Sendable {
    private let total = Mutex<Double>(0)

    func note(_ value: Double) { total.withLock { $0 = value } }

    var value: Double { total.withLock { $0 } }
}
