import HearthCore

/// `chats/$chatId/lastMessage`: `{id, text, sender, sentAt}` of the newest message by key
/// (the fields the message has of the right type; `text` is absent for an attachment). A call
/// message (`kind: "call"`, which has no text) adds `kind` and its `call` (`{callId, state,
/// durationMs}`), so a chat list can say "Missed call" without reading the message.
enum LastMessage {
    static func summary(id: ChildKey, message: Node) -> Node {
        // Put together in key order (`call`, `id`, `kind`, `sender`, `sentAt`, `text`): every
        // new message makes one, and a sort of its fields cost more than the rest of it.
        var keys: [ChildKey] = []
        var nodes: [Node] = []
        keys.reserveCapacity(6)
        nodes.reserveCapacity(6)
        let call = message.string("kind") == "call" ? message.child(Key.call) : nil
        if let call {
            keys.append(Key.call)
            nodes.append(call)
        }
        keys.append(Key.id)
        nodes.append(.leaf(.string(id.string), priority: nil))
        if call != nil {
            keys.append(Key.kind)
            nodes.append(.leaf(.string("call"), priority: nil))
        }
        if let sender = message.string("sender") {
            keys.append(Key.sender)
            nodes.append(.leaf(.string(sender), priority: nil))
        }
        if let sentAt = message.number("sentAt") {
            keys.append(Key.sentAt)
            nodes.append(.leaf(.number(sentAt), priority: nil))
        }
        if let text = message.string("text") {
            keys.append(Key.text)
            nodes.append(.leaf(.string(text), priority: nil))
        }
        return .children(Children(sortedKeys: keys, nodes: nodes), priority: nil)
    }

    /// The summary's keys, made once.
    private enum Key {
        static let call = ChildKey("call")
        static let id = ChildKey("id")
        static let kind = ChildKey("kind")
        static let sender = ChildKey("sender")
        static let sentAt = ChildKey("sentAt")
        static let text = ChildKey("text")
    }
}
