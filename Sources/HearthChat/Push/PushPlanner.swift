public import HearthCore
public import HearthDatabase
import HearthPush

/// Plans a `PushIntent` into a `PlannedIntent` (its content, one push per device), against the
/// namespace at one moment (right after the intent's commit): a recipient gets pushes only when
/// their presence is not `online`, they did not mute the chat (`userChats/$uid/$chatId/muted:
/// true`) and they have devices; the badge is their unread total, the title the group's name
/// or, in a private chat, the sender's displayName.
///
/// A page of intents is planned in one snapshot, and what it reads there is read once for the
/// page (`PlanningReads`): the messages of one group name the same members, so a page of 64
/// messages in a few busy groups reads each member's presence, devices and mute once, not 64
/// times.
public struct PushPlanner: Sendable {
    public init() {}

    /// The plan of each of `intents` (nil when no device gets a push), in their order.
    public func plan(_ intents: [PushIntent?], in snapshot: NamespaceSnapshot) -> [PlannedIntent?] {
        var reads = PlanningReads(snapshot: snapshot)
        return intents.map { intent in intent.flatMap { plan($0, reading: &reads) } }
    }

    /// The plan of `intent`; nil when no device gets a push.
    public func plan(_ intent: PushIntent, in snapshot: NamespaceSnapshot) -> PlannedIntent? {
        var reads = PlanningReads(snapshot: snapshot)
        return plan(intent, reading: &reads)
    }

    private func plan(_ intent: PushIntent, reading reads: inout PlanningReads) -> PlannedIntent? {
        var content = PushContent(
            chatId: intent.chatId,
            messageId: nil,
            callId: nil,
            title: reads.title(of: intent.chatId, sender: intent.sender),
            body: "",
            createdAt: intent.createdAt
        )
        switch intent.subject {
        case .message(let id):
            content.messageId = id
            content.body = intent.body ?? ""
        case .call(let id, let kind):
            content.callId = id
            content.body = kind == "video" ? "Incoming video call" : "Incoming audio call"
        }
        var pushes: [PlannedIntent.Push] = []
        for (index, uid) in intent.recipients.enumerated() where uid != intent.sender {
            let devices = reads.devicesIfOffline(of: uid)
            guard !devices.isEmpty, !reads.hasMuted(intent.chatId, uid) else { continue }
            let badge = index < intent.badges.count ? Double(intent.badges[index]) : reads.unreadTotal(of: uid)
            for device in devices {
                let push = PlannedIntent.Push(
                    uid: uid,
                    deviceId: device.id,
                    number: pushes.count,
                    badge: badge.isFinite ? Int(min(max(0, badge), Double(Int32.max))) : 0,
                    tokenHash: device.tokenHash
                )
                pushes.append(push)
            }
        }
        return pushes.isEmpty ? nil : PlannedIntent(content: content, pushes: pushes)
    }
}

/// What planning reads in one snapshot, each location read once: the same answer for every
/// intent of a page (one snapshot), at a fraction of the reads.
struct PlanningReads {
    /// A device a push can go to: registered with a token and a known platform.
    struct Device {
        var id: String
        var tokenHash: UInt64
    }

    let snapshot: NamespaceSnapshot
    private var devices: [String: [Device]] = [:]
    /// By chat id, then uid.
    private var mutes: [String: [String: Bool]] = [:]
    /// A chat's title: its name, or nil for a private chat (titled by the sender).
    private var groupNames: [String: String?] = [:]
    private var senderNames: [String: String] = [:]
    private var unreadTotals: [String: Double] = [:]

    init(snapshot: NamespaceSnapshot) {
        self.snapshot = snapshot
    }

    /// The user's devices when their presence is not `online`; none when it is.
    mutating func devicesIfOffline(of uid: String) -> [Device] {
        let snapshot = snapshot
        return Self.remembered(uid, in: &devices) {
            guard snapshot.node(at: DataPath("presence", uid, "state"))?.leafString != "online",
                case .children(let registered, _)? = snapshot.node(at: DataPath("devices", uid))
            else { return [] }
            return zip(registered.keys, registered.nodes).compactMap { key, device in
                guard let token = device.string("token"), !token.isEmpty,
                    device.string("platform").flatMap(PushPlatform.init(rawValue:)) != nil
                else { return nil }
                return Device(id: key.string, tokenHash: PlannedIntent.hash(token: token))
            }
        }
    }

    /// Whether `uid` muted `chatId` (`userChats/$uid/$chatId/muted: true`).
    mutating func hasMuted(_ chatId: String, _ uid: String) -> Bool {
        let snapshot = snapshot
        return Self.remembered(uid, in: &mutes[chatId, default: [:]]) {
            snapshot.node(at: DataPath("userChats", uid, chatId, "muted")) == .leaf(.bool(true), priority: nil)
        }
    }

    /// A group's name, or in a private chat the sender's displayName ("New message" without).
    mutating func title(of chatId: String, sender: String) -> String {
        let snapshot = snapshot
        let name = Self.remembered(chatId, in: &groupNames) { () -> String? in
            let chat = DataPath("chats", chatId)
            guard snapshot.node(at: chat.child(ChildKey("type")))?.leafString != "private" else { return nil }
            return snapshot.node(at: chat.child(ChildKey("name")))?.leafString ?? "New message"
        }
        if let name { return name }
        return Self.remembered(sender, in: &senderNames) {
            snapshot.node(at: DataPath("users", sender, "displayName"))?.leafString ?? "New message"
        }
    }

    /// The user's unread total (a call's badge, read when planned).
    mutating func unreadTotal(of uid: String) -> Double {
        let snapshot = snapshot
        return Self.remembered(uid, in: &unreadTotals) {
            snapshot.node(at: DataPath("unreadTotals", uid))?.leafNumber ?? 0
        }
    }

    /// `cache[key]`, read by `read` and kept the first time it is asked for.
    private static func remembered<Value>(
        _ key: String,
        in cache: inout [String: Value],
        _ read: () -> Value
    ) -> Value {
        if let known = cache[key] { return known }
        let value = read()
        cache[key] = value
        return value
    }
}

extension Node {
    fileprivate var leafString: String? {
        if case .leaf(.string(let text), _) = self { return text }
        return nil
    }

    fileprivate var leafNumber: Double? {
        if case .leaf(.number(let number), _) = self { return number }
        return nil
    }
}
