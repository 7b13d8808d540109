import HearthCore

/// `chats/$chatId/lastMessage`: `{id, text, sender, sentAt}` of the newest message by key
/// (the fields the message has of the right type; `text` is absent for an attachment). A call
/// message (`kind: "call"`, which has no text) adds `kind` and its `call` (`{callId, state,
/// durationMs}`), so a chat list can say "Missed call" without reading the message.
enum LastMessage {
    static func summary(id: ChildKey, message: Node) -> Node {
        var fields: [(ChildKey, Node)] = [(ChildKey("id"), .leaf(.string(id.string), priority: nil))]
        if let text = message.string("text") {
            fields.append((ChildKey("text"), .leaf(.string(text), priority: nil)))
        }
        if let sender = message.string("sender") {
            fields.append((ChildKey("sender"), .leaf(.string(sender), priority: nil)))
        }
        if let sentAt = message.number("sentAt") {
            fields.append((ChildKey("sentAt"), .leaf(.number(sentAt), priority: nil)))
        }
        if message.string("kind") == "call", let call = message.child(ChildKey("call")) {
            fields.append((ChildKey("kind"), .leaf(.string("call"), priority: nil)))
            fields.append((ChildKey("call"), call))
        }
        return .children(Children(unsorted: fields), priority: nil)
    }
}
