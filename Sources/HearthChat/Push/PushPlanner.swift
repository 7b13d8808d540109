public import HearthCore
public import HearthDatabase

/// Plans a `PushIntent` into one `PlannedPush` per device, against the namespace at one moment
/// (right after the intent's commit): a recipient gets pushes only when their presence is not
/// `online`, they did not mute the chat (`userChats/$uid/$chatId/muted: true`) and they have
/// devices; the badge is their unread total, the title the group's name or, in a private chat,
/// the sender's displayName.
public struct PushPlanner: Sendable {
    public init() {}

    /// The pushes of the intent queued at `key` (`JobKey.committed`) in `namespace`, each with
    /// its key in `PushQueues.deliveries`.
    public func plan(
        _ intent: PushIntent,
        key: [UInt8],
        namespace: String,
        in snapshot: NamespaceSnapshot
    ) -> [(key: [UInt8], push: PlannedPush)] {
        let chat = DataPath("chats", intent.chatId)
        let isPrivate = snapshot.node(at: chat.child(ChildKey("type")))?.leafString == "private"
        let title: String
        if isPrivate {
            title = snapshot.node(at: DataPath("users", intent.sender, "displayName"))?.leafString ?? "New message"
        } else {
            title = snapshot.node(at: chat.child(ChildKey("name")))?.leafString ?? "New message"
        }
        let body: String
        var messageId: String?
        var callId: String?
        switch intent.subject {
        case .message(let id):
            messageId = id
            body = intent.body ?? ""
        case .call(let id, let kind):
            callId = id
            body = kind == "video" ? "Incoming video call" : "Incoming audio call"
        }
        let order = JobKey.commitOrder(of: key).map { "\($0.sequence).\($0.index)" } ?? key.map { String($0) }.joined()
        var planned: [(key: [UInt8], push: PlannedPush)] = []
        for uid in intent.recipients where uid != intent.sender {
            guard snapshot.node(at: DataPath("presence", uid, "state"))?.leafString != "online",
                snapshot.node(at: DataPath("userChats", uid, intent.chatId, "muted"))
                    != .leaf(.bool(true), priority: nil),
                case .children(let devices, _)? = snapshot.node(at: DataPath("devices", uid))
            else { continue }
            let badge = snapshot.node(at: DataPath("unreadTotals", uid))?.leafNumber ?? 0
            for (deviceKey, device) in zip(devices.keys, devices.nodes) {
                guard let token = device.string("token"), !token.isEmpty,
                    let platform = device.string("platform"), ["fcm", "apns", "webpush"].contains(platform)
                else { continue }
                let push = PlannedPush(
                    id: "\(namespace):\(order).\(planned.count)",
                    uid: uid,
                    deviceId: deviceKey.string,
                    token: token,
                    platform: platform,
                    title: title,
                    body: body,
                    badge: max(0, Int(badge)),
                    chatId: intent.chatId,
                    messageId: messageId,
                    callId: callId,
                    createdAt: intent.createdAt
                )
                planned.append((PlannedPush.deviceKey(uid: uid, deviceId: deviceKey.string) + key, push))
            }
        }
        return planned
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
