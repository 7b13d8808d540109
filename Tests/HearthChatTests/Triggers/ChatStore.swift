import Foundation
import HearthChat
import HearthCore
import HearthDatabase
import HearthStore
import HearthTestSupport

/// A store in a temporary directory whose `default` namespace runs the chat app's triggers,
/// with a fixed clock (`ChatStore.now`).
final class ChatStore: @unchecked Sendable {
    static let now = 1_700_000_000_000.0
    let directory: TemporaryDirectory
    let store: Store
    let ns: NamespaceStore

    init() throws {
        directory = try TemporaryDirectory(prefix: "hearth-chat")
        var triggers = DatabaseTriggers()
        try ChatApp.register(in: &triggers, namespaces: ["default"])
        store = try Store.open(
            directory: directory.path,
            configuration: StoreConfiguration(triggers: triggers.registered),
            clock: { ChatStore.now }
        )
        ns = try store.namespace("default")
    }

    func destroy() {
        store.close()
        directory.remove()
    }

    /// Sets `path` to `json` as `author` (the admin by default).
    func set(_ path: String, _ json: String, as author: WriteAuthor = .admin, ifMatch: String? = nil) async throws {
        let result = try await ns.write(
            Write(
                .set(try DataPath.parse(path), try TreeParser.parse(json, at: .root)),
                ifMatch: ifMatch,
                author: author
            )
        )
        guard case .committed = result else { throw TestFailure("the write of \(path) was not committed: \(result)") }
    }

    /// A multi-path update at `path`.
    func update(_ path: String, _ entries: [(String, String)], as author: WriteAuthor = .admin) async throws {
        let parsed = try entries.map {
            UpdateEntry(path: try DataPath.parse($0.0), value: try TreeParser.parse($0.1, at: .root))
        }
        _ = try await ns.write(Write(.update(try DataPath.parse(path), parsed), author: author))
    }

    /// The JSON at `path`, compact, keys in order.
    func json(_ path: String) async throws -> String {
        let location = try DataPath.parse(path)
        return try await ns.read { reader in
            var out: [UInt8] = []
            reader.renderJSON(at: location, format: .plain, into: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// Sends a text message by `sender` into `chat` under key `id` with a server timestamp.
    func send(_ id: String, in chat: String, from sender: String, text: String = "hi") async throws {
        try await set(
            "/messages/\(chat)/\(id)",
            #"{"sender":"\#(sender)","kind":"text","text":"\#(text)","sentAt":{".sv":"timestamp"}}"#,
            as: .user(uid: sender)
        )
    }

    /// Writes `ChatStore.seed`.
    func seedChats() async throws {
        try await set("/", Self.seed)
    }

    /// A private chat `p1` of alice and bob, a group `g1` ("Hikers") of alice, bob and carol,
    /// each member with an empty entry in their chat list and a total of 0.
    static let seed = #"""
        {"users": {"alice": {"displayName": "Alice"}, "bob": {"displayName": "Bob"},
                   "carol": {"displayName": "Carol"}},
         "chats": {"p1": {"type": "private", "createdAt": 1},
                   "g1": {"type": "group", "name": "Hikers", "owner": "alice", "createdAt": 1}},
         "members": {"p1": {"alice": {"role": "member", "joinedAt": 1}, "bob": {"role": "member", "joinedAt": 1}},
                     "g1": {"alice": {"role": "owner", "joinedAt": 1}, "bob": {"role": "member", "joinedAt": 1},
                            "carol": {"role": "member", "joinedAt": 1}}},
         "userChats": {"alice": {"p1": {"unread": 0, "name": "Bob"}, "g1": {"unread": 0, "name": "Hikers"}},
                       "bob": {"p1": {"unread": 0, "name": "Alice"}, "g1": {"unread": 0, "name": "Hikers"}},
                       "carol": {"g1": {"unread": 0, "name": "Hikers"}}},
         "unreadTotals": {"alice": 0, "bob": 0, "carol": 0}}
        """#
}

extension ChatConsistencyCheck {
    /// The lookup indexes' disagreements in `ns`, compared by the store (as `hearth chat check`).
    static func lookupDisagreements(in ns: NamespaceStore) async throws -> [String] {
        try await lookupDisagreements(in: ns.name) { name in
            try await ns.lookupDisagreement(name).map { ($0.missing, $0.extra) }
        }
    }
}
