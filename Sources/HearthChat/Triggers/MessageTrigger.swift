public import HearthCore
public import HearthDatabase

/// The chat app's message trigger, on `/messages/$chatId/$messageId`; its updates commit in
/// the message's own batch (docs/design.md "The chat app: message triggers").
///
/// - A new message: each other member's `userChats/$uid/$chatId/unread` and
///   `unreadTotals/$uid` +1, every member's `lastMessageAt` (the sender's too), a member's
///   missing entry recreated with its `name`, and `chats/$chatId/lastMessage`; in a private
///   chat the sender's own `request` flag goes (a reply accepts, `ConversationRequest`).
/// - An edited or deleted message: no counter changes; `lastMessage` follows the newest
///   remaining message by key (removed when none remains).
/// - A new message older than the newest (by key) counts like any other and leaves
///   `lastMessage` and the `lastMessageAt`s as the newest one set them, without reading them
///   (a recreated entry gets the newest one's time).
///
/// A chat without members (or a new message that is not an object) yields no update: the
/// rules never let such a message in, and it has nobody to count it for.
///
/// With `queuesPushes`, a new message also queues its `PushIntent` (every other member) in its
/// commit, for the push queue to plan and deliver.
public struct MessageTrigger: TreeTrigger {
    /// The members' locations, made once per chat and member list.
    private let paths = FanoutPaths()
    /// Whether new messages queue pushes (a push provider is configured).
    public var queuesPushes: Bool

    public init(queuesPushes: Bool = false) {
        self.queuesPushes = queuesPushes
    }

    public var pattern: String { "/messages/$chatId/$messageId" }

    public func updates(for change: TreeChange) throws -> [DerivedUpdate] {
        guard let chatID = change.wildcards["chatId"], let messageID = change.wildcards["messageId"] else { return [] }
        let chat = ChildKey(chatID)
        let messages = ChatPaths.messages(chat)
        let lastMessage = ChatPaths.lastMessage(chat)
        switch (change.before, change.after) {
        case (nil, let message?):
            guard case .children = message,
                case .children(let members) = change.snapshot.shallow(at: ChatPaths.members(chat))
            else { return [] }
            let id = ChildKey(messageID)
            // The newest message sets every member's `lastMessageAt` and the chat's
            // `lastMessage` (no need to read the old one, a hot subtree every message
            // rewrites). An older one (its sender's clock is behind, or another sender's id of
            // the same millisecond sorts after it) only counts: the newer one set them.
            let isNewest = change.written.isLastChild(id, at: messages)
            let sender = message.string("sender") ?? change.author.uid
            // The members' locations, looked up once for the counters and the pushes' badges.
            let memberKeys = members.map(\.key)
            let located = paths.paths(
                namespace: change.namespace,
                chat: chat,
                members: memberKeys,
                snapshot: change.snapshot
            )
            let fanout = NewMessageFanout(
                chat: chat,
                members: memberKeys,
                sender: sender,
                sentAt: isNewest ? message.number("sentAt") ?? change.now : nil,
                newestSentAt: { change.written.lastChild(at: messages)?.node.number("sentAt") ?? change.now },
                snapshot: change.snapshot,
                located: located
            )
            var updates = fanout.updates()
            if isNewest { updates.append(.set(lastMessage, LastMessage.summary(id: id, message: message))) }
            updates += ConversationRequest.clearedByReply(
                from: sender,
                in: chat,
                memberCount: members.count,
                snapshot: change.snapshot
            )
            if queuesPushes, members.count > 1 {
                // Each recipient's badge: their unread total as this commit leaves it (one more).
                var recipients: [String] = []
                var badges: [Int] = []
                for (member, location) in zip(members, located) where member.key.string != sender {
                    recipients.append(member.key.string)
                    var total = 0
                    if case .number(let number)? = change.snapshot.leaf(at: location.unreadTotalLocation) {
                        total = max(0, Int(exactly: number.rounded()) ?? 0)
                    }
                    badges.append(total + 1)
                }
                let intent = PushIntent(
                    chatId: chatID,
                    subject: .message(id: messageID),
                    sender: sender ?? "",
                    recipients: recipients,
                    badges: badges,
                    body: PushIntent.body(of: message),
                    createdAt: change.now
                )
                change.queue(ServerJob(queue: PushQueues.intents, payload: intent.encoded()))
            }
            return updates
        case (_?, _):
            guard change.snapshot.exists(at: ChatPaths.members(chat)) else { return [] }
            let newest = change.written.lastChild(at: messages)
            let wanted = newest.map { LastMessage.summary(id: $0.key, message: $0.node) }
            guard change.written.node(at: lastMessage) != wanted else { return [] }
            var updates: [DerivedUpdate] = [.set(lastMessage, wanted)]
            // A new newest message (the one before it deleted) may have been sent after the
            // members' `lastMessageAt`: one that sorted before the deleted one did not move them.
            if let sentAt = newest?.node.number("sentAt"),
                case .children(let members) = change.snapshot.shallow(at: ChatPaths.members(chat))
            {
                for member in members {
                    let at = ChatPaths.entry(member.key, chat, ChatPaths.Key.lastMessageAt)
                    if case .number(let current)? = change.snapshot.leaf(at: at), current < sentAt {
                        updates.append(.set(at, .leaf(.number(sentAt), priority: nil)))
                    }
                }
            }
            return updates
        case (nil, nil):
            return []
        }
    }
}

extension WriteAuthor {
    /// The signed-in user who wrote, if any.
    var uid: String? {
        if case .user(let uid) = self { return uid }
        return nil
    }
}
