/// One push to one device, as the delivery worker hands it to a provider: exactly the fields of
/// the webhook's body (docs/push.md, "The webhook").
public struct PushMessage: Sendable, Hashable {
    /// The Hearth push id: the same for every attempt at this push, so a receiver can drop a
    /// duplicate (`Hearth-Push-Id`).
    public var id: String
    /// The user the push is for.
    public var uid: String
    /// The key of the device under `devices/$uid`.
    public var deviceID: String
    /// The provider's registration token of the device.
    public var token: String
    public var platform: PushPlatform
    public var title: String
    public var body: String
    /// The user's unread total, shown as the app icon's badge.
    public var badge: Int
    public var data: PushData

    public init(
        id: String,
        uid: String,
        deviceID: String,
        token: String,
        platform: PushPlatform,
        title: String,
        body: String,
        badge: Int,
        data: PushData
    ) {
        self.id = id
        self.uid = uid
        self.deviceID = deviceID
        self.token = token
        self.platform = platform
        self.title = title
        self.body = body
        self.badge = badge
        self.data = data
    }
}

/// Where a device's token comes from: `devices/$uid/$deviceId/platform`.
public enum PushPlatform: String, Sendable, Hashable, CaseIterable {
    case fcm
    case apns
    case webpush
}

/// What a push is about: its chat and exactly one of a message or a call.
public struct PushData: Sendable, Hashable {
    /// The message or the call the push announces.
    public enum Subject: Sendable, Hashable {
        case message(String)
        case call(String)
    }

    public var chatID: String
    public var subject: Subject

    public init(chatID: String, subject: Subject) {
        self.chatID = chatID
        self.subject = subject
    }

    /// A new message's push: `{chatId, messageId}`.
    public static func message(chatID: String, messageID: String) -> PushData {
        PushData(chatID: chatID, subject: .message(messageID))
    }

    /// An incoming call's push: `{chatId, callId}`.
    public static func call(chatID: String, callID: String) -> PushData {
        PushData(chatID: chatID, subject: .call(callID))
    }

    /// The message's id, when the push is about a message.
    public var messageID: String? {
        if case .message(let id) = subject { return id }
        return nil
    }

    /// The call's id, when the push is about a call.
    public var callID: String? {
        if case .call(let id) = subject { return id }
        return nil
    }

    /// The subject's wire key and id: `("messageId", id)` or `("callId", id)`.
    var subjectField: (key: String, id: String) {
        switch subject {
        case .message(let id): ("messageId", id)
        case .call(let id): ("callId", id)
        }
    }
}
