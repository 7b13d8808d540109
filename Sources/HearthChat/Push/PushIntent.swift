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

    /// The binary format's first byte.
    static let version: UInt8 = 1

    /// The intent as its job's payload, written on the writer with every message: the
    /// version; the chat id; 0 and the message id, or 1, the call id and its kind; the sender;
    /// 0, or 1 and the body; the time (8 bytes); the number of recipients and each one's uid and
    /// badge (a badge of 0 when there are none: read when planned). Strings are
    /// length-prefixed UTF-8, counts and badges LEB128 varints (`PushBytes`).
    public func encoded() -> [UInt8] {
        var out = PushBytes.Writer()
        out.bytes.reserveCapacity(48 + chatId.utf8.count + recipients.count * 12)
        out.byte(Self.version)
        out.string(chatId)
        switch subject {
        case .message(let id):
            out.byte(0)
            out.string(id)
        case .call(let id, let kind):
            out.byte(1)
            out.string(id)
            out.string(kind)
        }
        out.string(sender)
        if let body {
            out.byte(1)
            out.string(body)
        } else {
            out.byte(0)
        }
        out.fixed(createdAt.bitPattern)
        out.byte(badges.count == recipients.count && !recipients.isEmpty ? 1 : 0)
        out.varint(UInt64(recipients.count))
        for (index, recipient) in recipients.enumerated() {
            out.string(recipient)
            if badges.count == recipients.count { out.varint(UInt64(max(0, badges[index]))) }
        }
        return out.bytes
    }

    /// The intent `encoded()` made (or an earlier version's JSON); nil for anything else.
    public init?(decoding bytes: [UInt8]) {
        guard let intent = bytes.first == Self.version ? Self.binary(bytes) : Self.legacyJSON(bytes) else {
            return nil
        }
        self = intent
    }

    private static func binary(_ bytes: [UInt8]) -> PushIntent? {
        var reader = PushBytes.Reader(bytes)
        _ = reader.byte()
        guard let chatId = reader.string(), let kind = reader.byte(), let id = reader.string() else { return nil }
        let subject: Subject
        switch kind {
        case 0: subject = .message(id: id)
        case 1:
            guard let callKind = reader.string() else { return nil }
            subject = .call(id: id, kind: callKind)
        default: return nil
        }
        guard let sender = reader.string(), let hasBody = reader.byte(), hasBody <= 1 else { return nil }
        var body: String?
        if hasBody == 1 {
            guard let text = reader.string() else { return nil }
            body = text
        }
        guard let time = reader.fixed(), let hasBadges = reader.byte(), hasBadges <= 1, let count = reader.varint(),
            count <= UInt64(bytes.count)
        else { return nil }
        var recipients: [String] = []
        var badges: [Int] = []
        recipients.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let uid = reader.string() else { return nil }
            recipients.append(uid)
            if hasBadges == 1 {
                guard let badge = reader.int() else { return nil }
                badges.append(badge)
            }
        }
        guard reader.atEnd else { return nil }
        return PushIntent(
            chatId: chatId,
            subject: subject,
            sender: sender,
            recipients: recipients,
            badges: badges,
            body: body,
            createdAt: Double(bitPattern: time)
        )
    }

    /// An intent queued as JSON by an earlier version; nil for anything else.
    private static func legacyJSON(_ bytes: [UInt8]) -> PushIntent? {
        guard let json = try? JSONParser.parse(bytes),
            let chatId = json["chatId"]?.stringValue,
            let sender = json["sender"]?.stringValue,
            let recipients = json["recipients"]?.arrayValue,
            let createdAt = json["createdAt"]?.numberValue
        else { return nil }
        let subject: Subject
        if let id = json["messageId"]?.stringValue {
            subject = .message(id: id)
        } else if let id = json["callId"]?.stringValue, let kind = json["callKind"]?.stringValue {
            subject = .call(id: id, kind: kind)
        } else {
            return nil
        }
        return PushIntent(
            chatId: chatId,
            subject: subject,
            sender: sender,
            recipients: recipients.compactMap(\.stringValue),
            badges: json["badges"]?.arrayValue?.compactMap { $0.numberValue.flatMap { Int(exactly: $0.rounded()) } }
                ?? [],
            body: json["body"]?.stringValue,
            createdAt: createdAt
        )
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
    /// `PlannedIntent`: keyed by `PushDeviceKey` + the intent's key. The queue's start
    /// turns them into planned intents.
    public static let legacyDeliveries = "push.devices"
}
