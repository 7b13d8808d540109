public import HearthCore
public import HearthDatabase

/// `hearth chat check`: recomputes the chat app's derived values from its messages and
/// memberships in one snapshot and lists every disagreement (docs/design.md "Checking the chat
/// app's derived state" says exactly what is checked and why no more).
public struct ChatConsistencyCheck {
    /// What was looked at, and what disagrees (one sentence each, naming the path).
    public struct Outcome: Sendable, Equatable {
        public var chats = 0
        public var users = 0
        public var disagreements: [String] = []
    }

    let reader: NamespaceSnapshot
    /// The time the check runs at (milliseconds since 1970): what is overdue is judged by it.
    let now: Double

    public init(snapshot: NamespaceSnapshot, now: Double = ServerClock.system.now()) {
        reader = snapshot
        self.now = now
    }

    public func run() -> Outcome {
        var outcome = Outcome()
        var memberships: [String: Set<String>] = [:]
        for chat in keys(at: path("members")) {
            outcome.chats += 1
            let members = keys(at: path("members", chat))
            memberships[chat] = Set(members)
            outcome.disagreements += check(chat: chat, members: members)
        }
        var users = Set(keys(at: path("userChats")))
        users.formUnion(keys(at: path("unreadTotals")))
        for uid in users.sorted() {
            outcome.users += 1
            outcome.disagreements += check(user: uid, memberships: memberships)
        }
        outcome.disagreements += contactDisagreements() + requestDisagreements() + checkBlocks()
        outcome.disagreements += presenceDisagreements()
        outcome.disagreements += pushDisagreements() + callDisagreements(now: now)
        return outcome
    }

    /// `lastMessage` is the newest message by key; each member's `lastMessageAt` is not before
    /// it; a group entry's `name` is the group's name.
    private func check(chat: String, members: [String]) -> [String] {
        var found: [String] = []
        let newest = reader.lastChild(at: path("messages", chat))
        let wanted = newest.map { LastMessage.summary(id: $0.key, message: $0.node) }
        let lastMessage = reader.node(at: path("chats", chat, "lastMessage"))
        if lastMessage != wanted {
            found.append(
                "chats/\(chat)/lastMessage is \(Self.describe(lastMessage)), but the newest message "
                    + (newest.map { "is \($0.key) (\(Self.describe(wanted)))" } ?? "does not exist: it should be absent")
            )
        }
        let chatNode = reader.node(at: path("chats", chat))
        let groupName = chatNode?.string("type") == "group" ? chatNode?.string("name") : nil
        for member in members {
            guard let entry = reader.node(at: path("userChats", member, chat)) else { continue }
            if let sentAt = newest?.node.number("sentAt"), let at = entry.number("lastMessageAt"), at < sentAt {
                found.append(
                    "userChats/\(member)/\(chat)/lastMessageAt is \(Self.number(at)), before the newest "
                        + "message \(newest!.key) sent at \(Self.number(sentAt))"
                )
            }
            if let groupName, entry.string("name") != groupName {
                found.append(
                    "userChats/\(member)/\(chat)/name is \(Self.describe(entry.child(ChildKey("name")))), "
                        + "not the group's name \"\(groupName)\""
                )
            }
        }
        return found
    }

    /// Every entry is of a chat the user is a member of and has a whole, non-negative `unread`;
    /// `unreadTotals/$uid` is the sum of them (absent = 0).
    private func check(user uid: String, memberships: [String: Set<String>]) -> [String] {
        var found: [String] = []
        var sum = 0.0
        if case .children(let entries, _)? = reader.node(at: path("userChats", uid)) {
            for (chat, entry) in zip(entries.keys, entries.nodes) {
                if memberships[chat.string]?.contains(uid) != true {
                    found.append("userChats/\(uid)/\(chat) is an entry of a chat \(uid) is not a member of")
                }
                let unread = entry.number("unread") ?? (entry.child(ChildKey("unread")) == nil ? 0 : -1)
                if unread < 0 || unread != unread.rounded() {
                    found.append(
                        "userChats/\(uid)/\(chat)/unread is \(Self.describe(entry.child(ChildKey("unread")))), "
                            + "not a whole number ≥ 0"
                    )
                } else {
                    sum += unread
                }
            }
        }
        let totalNode = reader.node(at: path("unreadTotals", uid))
        let total: Double?
        switch totalNode {
        case .leaf(.number(let n), _)?: total = n
        case nil: total = 0
        default: total = nil
        }
        if total != sum {
            found.append(
                "unreadTotals/\(uid) is \(Self.describe(totalNode)), but the unread counters of "
                    + "userChats/\(uid) add up to \(Self.number(sum))"
            )
        }
        return found
    }

    func keys(at location: DataPath) -> [String] {
        guard case .children(let children) = reader.shallow(at: location) else { return [] }
        return children.map(\.key.string)
    }

    func path(_ keys: String...) -> DataPath {
        DataPath(keys: keys.map { ChildKey($0) })
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func describe(_ node: Node?) -> String {
        guard let node else { return "absent" }
        switch node {
        case .leaf(.number(let n), _): return number(n)
        case .leaf(.string(let s), _): return "\"\(s)\""
        case .leaf(.bool(let b), _): return String(b)
        case .children(let children, _):
            let fields = zip(children.keys, children.nodes).map { "\($0.0): \(describe($0.1))" }
            return "{" + fields.joined(separator: ", ") + "}"
        }
    }
}
