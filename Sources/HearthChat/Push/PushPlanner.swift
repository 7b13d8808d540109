public import HearthCore
public import HearthDatabase
import HearthPush

/// Plans a `PushIntent` into a `PlannedIntent` (its content, one push per device), against the
/// namespace at one moment (right after the intent's commit): a recipient gets pushes only when
/// their presence is not `online`, they did not mute the chat (`userChats/$uid/$chatId/muted:
/// true`) and they have devices; the badge is their unread total, the title the group's name
/// or, in a private chat, the sender's displayName.
public struct PushPlanner: Sendable {
    public init() {}

    /// The plan of `intent`; nil when no device gets a push.
    public func plan(_ intent: PushIntent, in snapshot: NamespaceSnapshot) -> PlannedIntent? {
        let chat = DataPath("chats", intent.chatId)
        let isPrivate = snapshot.node(at: chat.child(ChildKey("type")))?.leafString == "private"
        let title: String
        if isPrivate {
            title = snapshot.node(at: DataPath("users", intent.sender, "displayName"))?.leafString ?? "New message"
        } else {
            title = snapshot.node(at: chat.child(ChildKey("name")))?.leafString ?? "New message"
        }
        var content = PushContent(
            chatId: intent.chatId,
            messageId: nil,
            callId: nil,
            title: title,
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
            guard snapshot.node(at: DataPath("presence", uid, "state"))?.leafString != "online",
                snapshot.node(at: DataPath("userChats", uid, intent.chatId, "muted"))
                    != .leaf(.bool(true), priority: nil),
                case .children(let devices, _)? = snapshot.node(at: DataPath("devices", uid))
            else { continue }
            let badge =
                index < intent.badges.count
                ? Double(intent.badges[index]) : snapshot.node(at: DataPath("unreadTotals", uid))?.leafNumber ?? 0
            for (deviceKey, device) in zip(devices.keys, devices.nodes) {
                guard let token = device.string("token"), !token.isEmpty,
                    device.string("platform").flatMap(PushPlatform.init(rawValue:)) != nil
                else { continue }
                let push = PlannedIntent.Push(
                    uid: uid,
                    deviceId: deviceKey.string,
                    number: pushes.count,
                    badge: badge.isFinite ? Int(min(max(0, badge), Double(Int32.max))) : 0,
                    tokenHash: PlannedIntent.hash(token: token)
                )
                pushes.append(push)
            }
        }
        return pushes.isEmpty ? nil : PlannedIntent(content: content, pushes: pushes)
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
