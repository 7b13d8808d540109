/// The body of FCM HTTP v1's `messages:send` for one push (Google's `Message` resource):
///
/// ```json
/// {"message": {"token": "...",
///              "notification": {"title": "...", "body": "..."},
///              "data": {"chatId": "...", "messageId": "...", "pushId": "..."},
///              "apns": {"payload": {"aps": {"badge": 3}}},
///              "android": {"priority": "high"}}}
/// ```
///
/// `notification` is what the system shows; `data` (string values only, as FCM requires) is what
/// the app reads on a tap, with `callId` instead of `messageId` for a call; the badge reaches iOS
/// through the APNs payload (Android has no badge count in a notification message); `high` makes
/// Android deliver at once, even in Doze.
enum FCMMessageBody {
    static func render(_ push: PushMessage) -> [UInt8] {
        var json = JSONText()
        json.object { top in
            top.field("message") { message in
                message.field("token", string: push.token)
                message.field("notification") { notification in
                    notification.field("title", string: push.title)
                    notification.field("body", string: push.body)
                }
                message.field("data") { data in
                    data.field("chatId", string: push.data.chatID)
                    let subject = push.data.subjectField
                    data.field(subject.key, string: subject.id)
                    data.field("pushId", string: push.id)
                }
                message.field("apns") { apns in
                    apns.field("payload") { payload in
                        payload.field("aps") { aps in aps.field("badge", integer: max(0, push.badge)) }
                    }
                }
                message.field("android") { android in android.field("priority", string: "high") }
            }
        }
        return json.bytes
    }
}
