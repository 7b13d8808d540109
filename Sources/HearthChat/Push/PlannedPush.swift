public import HearthCore
import HearthPush

/// One push to one device, as it is sent: a planned intent's push with the intent's
/// `PushContent` and the device's token when it is sent. Its fields are the webhook's body
/// (`../shared/CONTRACT.md`, "Push notifications") with the intent's `createdAt`.
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

    /// `push` of the intent planned at `intentKey`, to `token` on `platform` (the device's now).
    public init(
        _ push: PlannedIntent.Push,
        of content: PushContent,
        intentKey: [UInt8],
        namespace: String,
        token: String,
        platform: String
    ) {
        self.init(
            id: Self.id(namespace: namespace, intentKey: intentKey, number: push.number),
            uid: push.uid,
            deviceId: push.deviceId,
            token: token,
            platform: platform,
            title: content.title,
            body: content.body,
            badge: push.badge,
            chatId: content.chatId,
            messageId: content.messageId,
            callId: content.callId,
            createdAt: content.createdAt
        )
    }

    /// The id of the push numbered `number` among those of the intent at `intentKey`:
    /// `<namespace>:<commit sequence>.<job index>.<number>`.
    public static func id(namespace: String, intentKey: [UInt8], number: Int) -> String {
        let order =
            JobKey.commitOrder(of: intentKey).map { "\($0.sequence).\($0.index)" }
            ?? intentKey.map { String($0) }.joined()
        return "\(namespace):\(order).\(number)"
    }

    /// A push queued whole, as JSON, by an earlier version (its entry's payload starts with
    /// `{`); nil for anything else. The next start rewrites it into a `PlannedIntent`.
    public init?(legacyPayload bytes: [UInt8]) {
        guard bytes.first == UInt8(ascii: "{"), let json = try? JSONParser.parse(bytes),
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

    /// A legacy push's content and push, as a `PlannedIntent` holds them; nil when its id does
    /// not end in its number.
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

    /// A device's key: uid, 0, device id, 0 (keys hold no control characters). In
    /// `PushQueues.legacyDeliveries`, followed by the intent's key.
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
