public import HearthCore
public import HearthDatabase

/// Queues the push of an incoming call in the commit that starts it (`calls/$callId` created
/// `ringing`): to its `callee` when it has one, else to every other member of its chat (a group
/// call rings them all).
public struct CallPushTrigger: TreeTrigger {
    public init() {}

    public var pattern: String { "/calls/$callId" }

    public func updates(for change: TreeChange) throws -> [DerivedUpdate] {
        guard change.before == nil, let call = change.after, call.string("state") == "ringing",
            let callId = change.wildcards["callId"], let chatId = call.string("chatId"),
            let caller = call.string("caller")
        else { return [] }
        let recipients: [String]
        if let callee = call.string("callee") {
            recipients = [callee]
        } else {
            guard case .children(let members) = change.snapshot.shallow(at: ChatPaths.members(ChildKey(chatId))) else {
                return []
            }
            recipients = members.map(\.key.string).filter { $0 != caller }
        }
        guard !recipients.isEmpty else { return [] }
        let intent = PushIntent(
            chatId: chatId,
            subject: .call(id: callId, kind: call.string("kind") ?? "audio"),
            sender: caller,
            recipients: recipients,
            body: nil,
            createdAt: change.now
        )
        change.queue(ServerJob(queue: PushQueues.intents, payload: intent.encoded()))
        return []
    }
}
