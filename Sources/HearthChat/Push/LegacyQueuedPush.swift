public import HearthCore
import HearthPush

/// A push an earlier version queued whole, one job per device in `PushQueues.legacyDeliveries`
/// (its payload the webhook's body as JSON, with `createdAt`): read once, at the queue's start,
/// and turned into a `PlannedIntent` with the same id.
struct LegacyQueuedPush: Sendable, Equatable {
    var id: String
    var uid: String
    var deviceId: String
    var token: String
    var title: String
    var body: String
    var badge: Int
    var chatId: String
    var messageId: String?
    var callId: String?
    var createdAt: Double

    /// The push in `bytes`; nil for anything else.
    init?(payload bytes: [UInt8]) {
        guard bytes.first == UInt8(ascii: "{"), let json = try? JSONParser.parse(bytes),
            let id = json["id"]?.stringValue, let uid = json["uid"]?.stringValue,
            let deviceId = json["deviceId"]?.stringValue, let token = json["token"]?.stringValue,
            let title = json["title"]?.stringValue, let body = json["body"]?.stringValue,
            let badge = json["badge"]?.numberValue.flatMap({ Int(exactly: $0.rounded()) }),
            let chatId = json["data"]?["chatId"]?.stringValue, let createdAt = json["createdAt"]?.numberValue
        else { return nil }
        self.id = id
        self.uid = uid
        self.deviceId = deviceId
        self.token = token
        self.title = title
        self.body = body
        self.badge = badge
        self.chatId = chatId
        messageId = json["data"]?["messageId"]?.stringValue
        callId = json["data"]?["callId"]?.stringValue
        self.createdAt = createdAt
    }

    /// Its content and push as a `PlannedIntent` holds them; nil when its id does not end in
    /// its number.
    var converted: (content: PushContent, push: PlannedIntent.Push)? {
        guard let last = id.split(separator: ".").last, let number = Int(last), number >= 0 else { return nil }
        let content = PushContent(
            chatId: chatId,
            messageId: callId == nil ? messageId ?? "" : nil,
            callId: callId,
            title: title,
            body: body,
            createdAt: createdAt
        )
        let push = PlannedIntent.Push(
            uid: uid,
            deviceId: deviceId,
            number: number,
            badge: badge,
            tokenHash: PlannedIntent.hash(token: token)
        )
        return (content, push)
    }
}
