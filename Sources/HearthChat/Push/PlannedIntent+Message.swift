public import HearthCore
public import HearthPush

extension PlannedIntent {
    /// The id of the push numbered `number` of the intent planned at `intentKey`:
    /// `<namespace>:<commit sequence>.<job index>.<number>`, the same on every attempt and
    /// after a restart (`Hearth-Push-Id`).
    public static func pushId(namespace: String, intentKey: [UInt8], number: Int) -> String {
        let order =
            JobKey.commitOrder(of: intentKey).map { "\($0.sequence).\($0.index)" }
            ?? intentKey.map { String($0) }.joined()
        return "\(namespace):\(order).\(number)"
    }
}

extension PlannedIntent.Push {
    /// The push as a provider sends it, to `token` on `platform` (the device's when it is sent).
    public func message(
        of content: PushContent,
        intentKey: [UInt8],
        namespace: String,
        token: String,
        platform: PushPlatform
    ) -> PushMessage {
        PushMessage(
            id: PlannedIntent.pushId(namespace: namespace, intentKey: intentKey, number: number),
            uid: uid,
            deviceID: deviceId,
            token: token,
            platform: platform,
            title: content.title,
            body: content.body,
            badge: badge,
            data: content.callId.map { PushData.call(chatID: content.chatId, callID: $0) }
                ?? PushData.message(chatID: content.chatId, messageID: content.messageId ?? "")
        )
    }
}
