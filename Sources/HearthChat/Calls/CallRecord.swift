import HearthCore
import HearthFunctions

/// A call as the call callables and the missed-call timer decide by, read from
/// `calls/$callId`: who placed it in which chat, who took it, where it is and when it started
/// and was answered. Two reads compare equal when none of that changed (ICE candidates are not
/// part of it), which is how a transition checks on the writer that the state it expects still
/// holds: two racing answers cannot both win.
struct CallRecord: Hashable, Sendable {
    let id: String
    let chatId: String
    let caller: String
    /// The member who answered; in a private chat the other party from the start.
    let callee: String?
    let kind: String
    let state: CallState
    /// Server times (milliseconds since 1970).
    let createdAt: Double?
    let answeredAt: Double?
    /// The members of a group who declined while it rang for the others.
    let declinedBy: Set<String>

    /// `calls/$callId`.
    static func path(_ id: String) -> DataPath { DataPath("calls", id) }

    /// `ringingCalls/$chatId`: the id of the chat's ringing call, written with the call in every
    /// transition into and out of `ringing`. A startCall commits only while it is absent (one
    /// ringing call per chat, judged on the writer), and the missed-call timer finds the ringing
    /// calls by it. No rule grants a read of it.
    static func ringingMarker(_ chatId: String) -> DataPath { DataPath(ringingKey, chatId) }

    /// The top-level key of the ringing markers.
    static let ringingKey = "ringingCalls"

    /// The ids of calls and call messages: chronological push ids, as the SDKs make.
    static let ids = PushIDGenerator()

    /// The call `id` as `snapshot` has it, or nil when there is none (or it is not a call the
    /// server wrote: no chat, caller or known state).
    static func read(_ id: String, in snapshot: CallableSnapshot) -> CallRecord? {
        guard let node = snapshot.node(at: path(id)) else { return nil }
        return CallRecord(id: id, node: node)
    }

    init?(id: String, node: Node) {
        guard let chatId = node.string("chatId"), let caller = node.string("caller"),
            let state = node.string("state").flatMap(CallState.init(rawValue:))
        else { return nil }
        self.id = id
        self.chatId = chatId
        self.caller = caller
        callee = node.string("callee")
        kind = node.string("kind") ?? "audio"
        self.state = state
        createdAt = node.number("createdAt")
        answeredAt = node.number("answeredAt")
        if case .children(let declined, _)? = node.child(ChildKey("declinedBy")) {
            declinedBy = Set(declined.keys.map(\.string))
        } else {
            declinedBy = []
        }
    }

    /// Whether `snapshot` (a write's precondition) still shows this call exactly so.
    func isUnchanged(in snapshot: CallableSnapshot) -> Bool {
        Self.read(id, in: snapshot) == self
    }

    /// Whether `uid` is one of the call's two parties (the caller, or the callee once set).
    func isParty(_ uid: String) -> Bool {
        uid == caller || uid == callee
    }
}
