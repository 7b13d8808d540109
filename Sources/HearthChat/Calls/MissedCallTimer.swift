import HearthCore
import HearthDatabase
import HearthFunctions

/// The durable missed-call timer: a call still `ringing` `ringTimeout` (45 s) after its
/// `createdAt` becomes `missed`, with its call message (`CallEnding`), in one write committed
/// only while the call is still exactly as read, so it never overrides an answer, decline or
/// cancel that got there first.
///
/// The tree is the truth: the ringing calls are the chats' ringing markers
/// (`ringingCalls/$chatId` = the call id, written with every transition into and out of
/// `ringing`), read afresh every `checkInterval` (1 s) and again at each call's deadline. So a
/// restart loses nothing: the first look after the start marks every call whose deadline passed
/// while the server was down, at once. A marker whose call is gone or no longer ringing (an
/// admin's edit) is removed, so it cannot keep its chat from ringing again. A call whose chat was
/// deleted for everyone while it rang ends `missed` without a call message (there is no chat to
/// hold one).
struct MissedCallTimer: DatabaseService {
    /// The chat app's namespaces.
    let namespaces: [String]
    let configuration: CallConfiguration

    var name: String { "chat.calls.missed" }

    func run(database: Database) async throws {
        while true {
            var wait = configuration.checkInterval.milliseconds
            for namespace in namespaces where database.isCreated(namespace) {
                let engine = try await database.engine(for: namespace)
                let next = try await markOverdue(in: CallableDatabase(namespace: namespace, engine: engine))
                if let next { wait = min(wait, max(0, next)) }
            }
            try await Task.sleep(for: .milliseconds(Int(wait.rounded(.up))))
        }
    }

    /// What a look reads of one ringing marker: three leaves of its call, not the call's offer
    /// and candidates (those are read only for a call that is due).
    struct Ringing: Sendable {
        let chatId: String
        let callId: String?
        let isRingingHere: Bool
        let createdAt: Double
    }

    /// Marks the overdue ringing calls of one namespace missed.
    /// - Returns: milliseconds until the next ringing call is due, nil when none rings.
    func markOverdue(in database: CallableDatabase) async throws(CallableError) -> Double? {
        let timeout = configuration.ringTimeout.milliseconds
        let ringing = try await database.read { snapshot in
            guard case .children(let markers, _)? = snapshot.node(at: DataPath(CallRecord.ringingKey)) else {
                return [Ringing]()
            }
            return zip(markers.keys, markers.nodes).map { key, marker in
                let callId = marker.string
                let field = { (name: String) in callId.flatMap { snapshot.node(at: DataPath("calls", $0, name)) } }
                return Ringing(
                    chatId: key.string,
                    callId: callId,
                    isRingingHere: field("state")?.string == CallState.ringing.rawValue
                        && field("chatId")?.string == key.string,
                    createdAt: field("createdAt")?.number ?? 0
                )
            }
        }
        var next: Double?
        for entry in ringing {
            let marker = CallRecord.ringingMarker(entry.chatId)
            guard let callId = entry.callId, entry.isRingingHere else {
                // Its call is gone or not ringing here, and no call can start while it stays.
                try await database.commit([.delete(marker)]) { $0.node(at: marker)?.string == entry.callId }
                continue
            }
            let now = database.now()
            let due = entry.createdAt + timeout
            guard due <= now else {
                next = min(next ?? .infinity, due - now)
                continue
            }
            try await markMissed(callId, at: now, in: database)
        }
        return next
    }

    /// Ends the call `callId` `missed` at `now`, while it is still ringing as read.
    private func markMissed(_ callId: String, at now: Double, in database: CallableDatabase) async throws(CallableError)
    {
        let read = try await database.read { snapshot in
            CallRecord.read(callId, in: snapshot).map { ($0, snapshot.exists(DataPath("chats", $0.chatId))) }
        }
        guard let (call, chatExists) = read, call.state == .ringing else { return }
        var ending = CallEnding(call: call, state: .missed, endedAt: now, messageId: CallRecord.ids.next())
        ending.chatExists = chatExists
        let chat = DataPath("chats", call.chatId)
        try await database.commit(ending.updates) { call.isUnchanged(in: $0) && $0.exists(chat) == chatExists }
    }
}
