import HearthCore
public import HearthDatabase
public import HearthFunctions

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

    /// Marks the overdue ringing calls of one namespace missed.
    /// - Returns: milliseconds until the next ringing call is due, nil when none rings.
    func markOverdue(in database: CallableDatabase) async throws(CallableError) -> Double? {
        let timeout = configuration.ringTimeout.milliseconds
        let ringing = try await database.read { snapshot in
            guard case .children(let markers, _)? = snapshot.node(at: DataPath(CallRecord.ringingKey)) else {
                return [(chatId: String, callId: String?, call: CallRecord?, chatExists: Bool)]()
            }
            return zip(markers.keys, markers.nodes).map { key, marker in
                let callId = marker.string
                let call = callId.flatMap { CallRecord.read($0, in: snapshot) }
                return (key.string, callId, call, snapshot.exists(DataPath("chats", key.string)))
            }
        }
        var next: Double?
        for (chatId, callId, call, chatExists) in ringing {
            let marker = CallRecord.ringingMarker(chatId)
            guard let call, call.state == .ringing, call.chatId == chatId else {
                try await database.commit([.delete(marker)]) { $0.node(at: marker)?.string == callId }
                continue
            }
            let now = database.now()
            let due = (call.createdAt ?? 0) + timeout
            guard due <= now else {
                next = min(next ?? .infinity, due - now)
                continue
            }
            var ending = CallEnding(call: call, state: .missed, endedAt: now, messageId: CallEnding.ids.next())
            ending.chatExists = chatExists
            let chat = DataPath("chats", chatId)
            try await database.commit(ending.updates) { call.isUnchanged(in: $0) && $0.exists(chat) == chatExists }
        }
        return next
    }
}
