import HearthCore

extension ChatConsistencyCheck {
    /// `userChats/$uid/$chatId/request` (`ConversationRequest`): `true` when present, on the
    /// entry of a private chat, and not one that should have been cleared: its holder has sent
    /// no message into the chat and does not have the other party in contacts (either would
    /// have removed it in the same commit). Whether a flag is missing is not checked: accepting
    /// leaves no trace, so no data says a flag should be there.
    func requestDisagreements() -> [String] {
        var found: [String] = []
        for uid in keys(at: path("userChats")) {
            guard case .children(let entries, _)? = reader.node(at: path("userChats", uid)) else { continue }
            for (chat, entry) in zip(entries.keys, entries.nodes) {
                guard let flag = entry.child(ConversationRequest.field) else { continue }
                found += requestDisagreements(flag, of: uid, in: chat.string)
            }
        }
        return found
    }

    private func requestDisagreements(_ flag: Node, of uid: String, in chat: String) -> [String] {
        let at = "userChats/\(uid)/\(chat)/request"
        guard case .leaf(.bool(true), _) = flag else {
            return ["\(at) is \(Self.describe(flag)), not true (a cleared request is absent)"]
        }
        guard reader.node(at: path("chats", chat, "type"))?.string == "private" else {
            return ["\(at) is set on an entry of '\(chat)', which is not a private chat"]
        }
        var found: [String] = []
        if case .children(let messages, _)? = reader.node(at: path("messages", chat)),
            let reply = zip(messages.keys, messages.nodes).first(where: { $0.1.string("sender") == uid })
        {
            found.append("\(at) is set, but \(uid) replied (message \(reply.0)): the reply should have cleared it")
        }
        for other in keys(at: path("members", chat)) where other != uid {
            if reader.node(at: path("contacts", uid, other)) != nil {
                found.append(
                    "\(at) is set, but \(uid) has the other party \(other) in contacts: adding them should have cleared it"
                )
            }
        }
        return found
    }
}
