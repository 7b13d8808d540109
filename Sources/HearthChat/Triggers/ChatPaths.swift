import HearthCore

/// The chat app's locations (docs: CONTRACT "The chat app").
enum ChatPaths {
    static func chat(_ chat: ChildKey) -> DataPath { DataPath(keys: [Key.chats, chat]) }
    static func lastMessage(_ chat: ChildKey) -> DataPath { DataPath(keys: [Key.chats, chat, Key.lastMessage]) }
    static func members(_ chat: ChildKey) -> DataPath { DataPath(keys: [Key.members, chat]) }
    static func messages(_ chat: ChildKey) -> DataPath { DataPath(keys: [Key.messages, chat]) }
    static func entry(_ uid: ChildKey, _ chat: ChildKey) -> DataPath { DataPath(keys: [Key.userChats, uid, chat]) }
    /// A field of a member's chat-list entry (`unread`, `lastMessageAt`, `name`).
    static func entry(_ uid: ChildKey, _ chat: ChildKey, _ field: ChildKey) -> DataPath {
        DataPath(keys: [Key.userChats, uid, chat, field])
    }
    static func unreadTotal(_ uid: ChildKey) -> DataPath { DataPath(keys: [Key.unreadTotals, uid]) }
    static func displayName(_ uid: ChildKey) -> DataPath { DataPath(keys: [Key.users, uid, Key.displayName]) }

    /// The keys the paths are made of, made once (a message's fan-out builds ~300 paths).
    enum Key {
        static let chats = ChildKey("chats")
        static let lastMessage = ChildKey("lastMessage")
        static let members = ChildKey("members")
        static let messages = ChildKey("messages")
        static let userChats = ChildKey("userChats")
        static let unreadTotals = ChildKey("unreadTotals")
        static let users = ChildKey("users")
        static let displayName = ChildKey("displayName")
        static let unread = ChildKey("unread")
        static let lastMessageAt = ChildKey("lastMessageAt")
        static let name = ChildKey("name")
        static let type = ChildKey("type")
    }
}

extension Node {
    /// The string at child `key`, when there is one.
    func string(_ key: String) -> String? {
        guard case .leaf(.string(let text), _)? = child(ChildKey(key)) else { return nil }
        return text
    }

    /// The number at child `key`, when there is one.
    func number(_ key: String) -> Double? {
        guard case .leaf(.number(let number), _)? = child(ChildKey(key)) else { return nil }
        return number
    }
}
