public import HearthCore

/// What every device's push of one planned intent shares: queued once per intent in
/// `PushQueues.contents`, under the intent's key, beside its devices' `DevicePush` entries, and
/// removed with the last of them. A push is then a few bytes per device, not a copy of the
/// message (docs/decisions/0019-compact-push-queue.md).
public struct PushContent: Sendable, Equatable {
    public var chatId: String
    /// The message's id, or nil for a call's pushes.
    public var messageId: String?
    /// The call's id, for a call's pushes.
    public var callId: String?
    public var title: String
    public var body: String
    /// When its intent committed (milliseconds since 1970): the 24-hour retry window starts here.
    public var createdAt: Double

    public init(
        chatId: String,
        messageId: String?,
        callId: String?,
        title: String,
        body: String,
        createdAt: Double
    ) {
        self.chatId = chatId
        self.messageId = messageId
        self.callId = callId
        self.title = title
        self.body = body
        self.createdAt = createdAt
    }

    /// The content as its job's payload: compact JSON.
    public func encoded() -> [UInt8] {
        var fields: [(String, JSONValue)] = [("chatId", .string(chatId))]
        if let messageId { fields.append(("messageId", .string(messageId))) }
        if let callId { fields.append(("callId", .string(callId))) }
        fields.append(("title", .string(title)))
        fields.append(("body", .string(body)))
        fields.append(("createdAt", .number(createdAt)))
        var out: [UInt8] = []
        JSONRenderer.render(.object(fields), into: &out)
        return out
    }

    /// The content `encoded()` made; nil for anything else.
    public init?(decoding bytes: [UInt8]) {
        guard let json = try? JSONParser.parse(bytes),
            let chatId = json["chatId"]?.stringValue,
            let title = json["title"]?.stringValue,
            let body = json["body"]?.stringValue,
            let createdAt = json["createdAt"]?.numberValue
        else { return nil }
        let messageId = json["messageId"]?.stringValue
        let callId = json["callId"]?.stringValue
        guard (messageId == nil) != (callId == nil) else { return nil }
        self.init(chatId: chatId, messageId: messageId, callId: callId, title: title, body: body, createdAt: createdAt)
    }
}
