public import HearthCore

/// What a committed message or an incoming call leaves for the push queue, queued in the same
/// commit (`ServerJob` in `PushQueues.intents`): who may be told, about what. Which of them are
/// offline, have devices and did not mute the chat is decided when the intent is planned into
/// per-device pushes (`PushPlanner`), off the writer and right after the commit.
public struct PushIntent: Sendable, Equatable {
    /// What the push is about.
    public enum Subject: Sendable, Equatable {
        /// A new message (`data.messageId`).
        case message(id: String)
        /// An incoming call of kind `audio` or `video` (`data.callId`).
        case call(id: String, kind: String)
    }

    public var chatId: String
    public var subject: Subject
    /// The message's sender or the caller: the title of a private chat's push is their name.
    public var sender: String
    /// The members who may be told, in the order of the member list (never the sender).
    public var recipients: [String]
    /// Each recipient's badge, their unread total as the commit left it (a message's intent);
    /// empty: read when planned (a call's).
    public var badges: [Int]
    /// The push's body for a message ("Photo", "Video", the text's first 100 characters, ...);
    /// nil for a call (the planner words it).
    public var body: String?
    /// The server time of the commit (milliseconds): the push's 24-hour retry window starts here.
    public var createdAt: Double

    public init(
        chatId: String,
        subject: Subject,
        sender: String,
        recipients: [String],
        badges: [Int] = [],
        body: String?,
        createdAt: Double
    ) {
        self.chatId = chatId
        self.subject = subject
        self.sender = sender
        self.recipients = recipients
        self.badges = badges
        self.body = body
        self.createdAt = createdAt
    }

    /// The most characters of a message's text a push carries.
    public static let maxBodyCharacters = 100

    /// The body of a push for `message` (`kind`, `text`, `call` as the chat app writes them).
    static func body(of message: Node) -> String {
        switch message.string("kind") {
        case "image": return "Photo"
        case "video": return "Video"
        case "call":
            let call = message.child(ChildKey("call"))
            switch call?.string("state") {
            case "missed", "cancelled": return "Missed call"
            case "declined": return "Declined call"
            default: return "Call ended"
            }
        default:
            return String((message.string("text") ?? "").prefix(maxBodyCharacters))
        }
    }

    // MARK: Encoding (the job's payload)

    /// The intent as its job's payload: compact JSON.
    public func encoded() -> [UInt8] {
        var fields: [(String, JSONValue)] = [("chatId", .string(chatId))]
        switch subject {
        case .message(let id): fields.append(("messageId", .string(id)))
        case .call(let id, let kind):
            fields.append(("callId", .string(id)))
            fields.append(("callKind", .string(kind)))
        }
        fields.append(("sender", .string(sender)))
        fields.append(("recipients", .array(recipients.map { .string($0) })))
        if !badges.isEmpty { fields.append(("badges", .array(badges.map { .number(Double($0)) }))) }
        if let body { fields.append(("body", .string(body))) }
        fields.append(("createdAt", .number(createdAt)))
        var out: [UInt8] = []
        out.reserveCapacity(96 + recipients.count * 32)
        JSONRenderer.render(.object(fields), into: &out)
        return out
    }

    /// The intent `encoded()` made; nil for anything else.
    public init?(decoding bytes: [UInt8]) {
        guard let json = try? JSONParser.parse(bytes),
            let chatId = json["chatId"]?.stringValue,
            let sender = json["sender"]?.stringValue,
            let recipients = json["recipients"]?.arrayValue,
            let createdAt = json["createdAt"]?.numberValue
        else { return nil }
        if let id = json["messageId"]?.stringValue {
            subject = .message(id: id)
        } else if let id = json["callId"]?.stringValue, let kind = json["callKind"]?.stringValue {
            subject = .call(id: id, kind: kind)
        } else {
            return nil
        }
        self.chatId = chatId
        self.sender = sender
        self.recipients = recipients.compactMap(\.stringValue)
        badges = json["badges"]?.arrayValue?.compactMap { $0.numberValue.map { Int($0) } } ?? []
        body = json["body"]?.stringValue
        self.createdAt = createdAt
    }
}

/// The job queues of push notifications.
public enum PushQueues {
    /// The intents committed with messages and calls (`PushIntent`), in commit order.
    public static let intents = "push"
    /// The planned intents (`PlannedIntent`), keyed by the intent's key, while any of their
    /// pushes is not done.
    public static let planned = "push.planned"
    /// Which pushes of a planned intent are done (`PushDoneSet`), keyed by the intent's key.
    public static let done = "push.done"
    /// Pushes queued one per device, whole (the webhook's body as JSON), by versions before
    /// `PlannedIntent`: keyed by `PlannedPush.deviceKey` + the intent's key. The queue's start
    /// turns them into planned intents.
    public static let legacyDeliveries = "push.devices"
}
