public import HearthCore
import HearthPush

/// One push to one device, planned from a `PushIntent` and queued in `PushQueues.deliveries`
/// until the provider accepts it. Its payload is the webhook's body (`../shared/CONTRACT.md`,
/// "Push notifications") with the intent's `createdAt`.
public struct PlannedPush: Sendable, Equatable {
    /// The push's id (`Hearth-Push-Id`): the same on every attempt, also after a restart, so a
    /// receiver can drop a duplicate.
    public var id: String
    public var uid: String
    public var deviceId: String
    public var token: String
    public var platform: String
    public var title: String
    public var body: String
    public var badge: Int
    public var chatId: String
    /// The message's id, or nil for a call's push.
    public var messageId: String?
    /// The call's id, for a call's push.
    public var callId: String?
    /// When its intent committed (milliseconds since 1970).
    public var createdAt: Double

    public init(
        id: String,
        uid: String,
        deviceId: String,
        token: String,
        platform: String,
        title: String,
        body: String,
        badge: Int,
        chatId: String,
        messageId: String?,
        callId: String?,
        createdAt: Double
    ) {
        self.id = id
        self.uid = uid
        self.deviceId = deviceId
        self.token = token
        self.platform = platform
        self.title = title
        self.body = body
        self.badge = badge
        self.chatId = chatId
        self.messageId = messageId
        self.callId = callId
        self.createdAt = createdAt
    }

    /// The queued job's payload: the webhook's body (`{"id", "uid", "deviceId", "token",
    /// "platform", "title", "body", "badge", "data": {"chatId", "messageId" | "callId"}}`) with
    /// `createdAt`.
    public func encoded() -> [UInt8] {
        var data: [(String, JSONValue)] = [("chatId", .string(chatId))]
        if let messageId { data.append(("messageId", .string(messageId))) }
        if let callId { data.append(("callId", .string(callId))) }
        let fields: [(String, JSONValue)] = [
            ("id", .string(id)), ("uid", .string(uid)), ("deviceId", .string(deviceId)), ("token", .string(token)),
            ("platform", .string(platform)), ("title", .string(title)), ("body", .string(body)),
            ("badge", .number(Double(badge))), ("data", .object(data)), ("createdAt", .number(createdAt)),
        ]
        var out: [UInt8] = []
        JSONRenderer.render(.object(fields), into: &out)
        return out
    }

    /// The push `encoded()` made; nil for anything else.
    public init?(decoding bytes: [UInt8]) {
        guard let json = try? JSONParser.parse(bytes),
            let id = json["id"]?.stringValue, let uid = json["uid"]?.stringValue,
            let deviceId = json["deviceId"]?.stringValue, let token = json["token"]?.stringValue,
            let platform = json["platform"]?.stringValue, let title = json["title"]?.stringValue,
            let body = json["body"]?.stringValue, let badge = json["badge"]?.numberValue,
            let chatId = json["data"]?["chatId"]?.stringValue, let createdAt = json["createdAt"]?.numberValue
        else { return nil }
        self.init(
            id: id,
            uid: uid,
            deviceId: deviceId,
            token: token,
            platform: platform,
            title: title,
            body: body,
            badge: Int(badge),
            chatId: chatId,
            messageId: json["data"]?["messageId"]?.stringValue,
            callId: json["data"]?["callId"]?.stringValue,
            createdAt: createdAt
        )
    }

    /// The key of a device's pushes in `PushQueues.deliveries`: uid, 0, device id, 0 (keys hold
    /// no control characters), so each device's pushes are one range, in the order of the
    /// intents' keys that follow.
    public static func deviceKey(uid: String, deviceId: String) -> [UInt8] {
        Array(uid.utf8) + [0] + Array(deviceId.utf8) + [0]
    }

    /// The uid and device id of a key `deviceKey` starts; nil for another key.
    public static func device(of key: [UInt8]) -> (uid: String, deviceId: String, prefix: [UInt8])? {
        guard let first = key.firstIndex(of: 0), let second = key[(first + 1)...].firstIndex(of: 0) else {
            return nil
        }
        return (
            String(decoding: key[..<first], as: UTF8.self),
            String(decoding: key[(first + 1)..<second], as: UTF8.self),
            Array(key[...second])
        )
    }
}

extension PlannedPush {
    /// The push as its provider sends it (an unknown platform is sent as `fcm`: the planner
    /// plans only the three).
    var message: PushMessage {
        PushMessage(
            id: id,
            uid: uid,
            deviceID: deviceId,
            token: token,
            platform: PushPlatform(rawValue: platform) ?? .fcm,
            title: title,
            body: body,
            badge: badge,
            data: callId.map { PushData.call(chatID: chatId, callID: $0) }
                ?? PushData.message(chatID: chatId, messageID: messageId ?? "")
        )
    }
}
