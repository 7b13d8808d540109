import HearthCore

/// The chat app's locations (docs: CONTRACT "The chat app").
enum ChatPaths {
    static func chat(_ chat: ChildKey) -> DataPath { path("chats", chat) }
    static func lastMessage(_ chat: ChildKey) -> DataPath { path("chats", chat, "lastMessage") }
    static func members(_ chat: ChildKey) -> DataPath { path("members", chat) }
    static func messages(_ chat: ChildKey) -> DataPath { path("messages", chat) }
    static func entry(_ uid: ChildKey, _ chat: ChildKey) -> DataPath {
        DataPath(keys: [ChildKey("userChats"), uid, chat])
    }
    static func unreadTotal(_ uid: ChildKey) -> DataPath { path("unreadTotals", uid) }
    static func displayName(_ uid: ChildKey) -> DataPath { path("users", uid, "displayName") }

    private static func path(_ first: String, _ key: ChildKey, _ rest: String...) -> DataPath {
        DataPath(keys: [ChildKey(first), key] + rest.map { ChildKey($0) })
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
