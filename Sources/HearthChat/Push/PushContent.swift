/// What every device's push of one planned intent shares (`PlannedIntent`).
public struct PushContent: Sendable, Equatable {
    public var chatId: String
    /// The message's id, or nil for a call's pushes.
    public var messageId: String?
    /// The call's id, for a call's pushes.
    public var callId: String?
    public var title: String
    public var body: String
    /// When its intent committed (milliseconds since 1970): the 24-hour retry window starts here.
    public var createdAt: Double

    public init(
        chatId: String,
        messageId: String?,
        callId: String?,
        title: String,
        body: String,
        createdAt: Double
    ) {
        self.chatId = chatId
        self.messageId = messageId
        self.callId = callId
        self.title = title
        self.body = body
        self.createdAt = createdAt
    }
}
