extension PushMessage {
    /// The webhook's body: the contract's JSON object, keys in the contract's order
    /// (`id`, `uid`, `deviceId`, `token`, `platform`, `title`, `body`, `badge`,
    /// `data: {chatId, messageId | callId}`), no spaces, UTF-8. The signature covers these exact bytes.
    public var webhookBody: [UInt8] {
        var json = JSONText()
        json.object { object in
            object.field("id", string: id)
            object.field("uid", string: uid)
            object.field("deviceId", string: deviceID)
            object.field("token", string: token)
            object.field("platform", string: platform.rawValue)
            object.field("title", string: title)
            object.field("body", string: body)
            object.field("badge", integer: badge)
            object.field("data") { fields in
                fields.field("chatId", string: data.chatID)
                let subject = data.subjectField
                fields.field(subject.key, string: subject.id)
            }
        }
        return json.bytes
    }
}
