/// A planned intent: its `PushContent` and the pushes it makes, one per device, queued in
/// `PushQueues.planned` under the intent's key until each is done (accepted, or given up).
/// Which are done is a bitmap in `PushQueues.done` under the same key (`PushDoneSet`), written
/// as they finish and removed with the record when the last one does. So a push costs no key of
/// its own: the record is written once, the bitmap overwritten in place
/// (docs/decisions/0019-push-queue-one-record-per-intent.md).
public struct PlannedIntent: Sendable, Equatable {
    /// One device's push.
    public struct Push: Sendable, Equatable {
        public var uid: String
        public var deviceId: String
        /// The last part of the push's id (its place among the intent's pushes when planned).
        public var number: Int
        /// The recipient's badge (their unread total).
        public var badge: Int
        /// `PlannedIntent.hash(token:)` of the token it was planned for. The push goes to the
        /// device's token when it is sent, and only if that is still this one (a device
        /// registered again with another token gets nothing planned for the old one).
        public var tokenHash: UInt64

        public init(uid: String, deviceId: String, number: Int, badge: Int, tokenHash: UInt64) {
            self.uid = uid
            self.deviceId = deviceId
            self.number = number
            self.badge = badge
            self.tokenHash = tokenHash
        }
    }

    public var content: PushContent
    public var pushes: [Push]

    public init(content: PushContent, pushes: [Push]) {
        self.content = content
        self.pushes = pushes
    }

    /// A token's 64-bit FNV-1a hash.
    public static func hash(token: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    // MARK: Encoding

    /// The format's first byte.
    static let version: UInt8 = 1

    /// The record's payload: the version; the content (chat id, 0 and the message id or 1 and
    /// the call id, title, body, creation time); the number of pushes and each one's uid, device
    /// id, number, badge and token hash. Strings are length-prefixed UTF-8, integers LEB128
    /// varints, the time and the hash 8 bytes little-endian.
    public func encoded() -> [UInt8] {
        var out = PushBytes.Writer()
        out.bytes.reserveCapacity(64 + pushes.count * 24)
        out.byte(Self.version)
        out.string(content.chatId)
        if let callId = content.callId {
            out.byte(1)
            out.string(callId)
        } else {
            out.byte(0)
            out.string(content.messageId ?? "")
        }
        out.string(content.title)
        out.string(content.body)
        out.fixed(content.createdAt.bitPattern)
        out.varint(UInt64(pushes.count))
        for push in pushes {
            out.string(push.uid)
            out.string(push.deviceId)
            out.varint(UInt64(max(0, push.number)))
            out.varint(UInt64(max(0, push.badge)))
            out.fixed(push.tokenHash)
        }
        return out.bytes
    }

    /// The record `encoded()` made; nil for anything else.
    public init?(decoding bytes: [UInt8]) {
        var reader = PushBytes.Reader(bytes)
        guard reader.byte() == Self.version, let chatId = reader.string(), let kind = reader.byte(),
            let subject = reader.string(), let title = reader.string(), let body = reader.string(),
            let createdAt = reader.fixed(), let count = reader.varint(), count <= UInt64(bytes.count)
        else { return nil }
        var pushes: [Push] = []
        pushes.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let uid = reader.string(), let deviceId = reader.string(), let number = reader.int(),
                let badge = reader.int(), let hash = reader.fixed()
            else { return nil }
            pushes.append(Push(uid: uid, deviceId: deviceId, number: number, badge: badge, tokenHash: hash))
        }
        guard reader.atEnd, kind <= 1 else { return nil }
        let content = PushContent(
            chatId: chatId,
            messageId: kind == 0 ? subject : nil,
            callId: kind == 1 ? subject : nil,
            title: title,
            body: body,
            createdAt: Double(bitPattern: createdAt)
        )
        self.init(content: content, pushes: pushes)
    }
}

/// Which of a planned intent's pushes are done: bit `i` (byte `i / 8`, bit `i % 8`) for push
/// `i`, the bytes as stored in `PushQueues.done`.
public struct PushDoneSet: Sendable, Equatable {
    public private(set) var bytes: [UInt8]

    /// None of `count` pushes done.
    public init(count: Int) {
        bytes = [UInt8](repeating: 0, count: (count + 7) / 8)
    }

    /// The set stored as `bytes` for `count` pushes (shorter bytes: the rest not done).
    public init(bytes: [UInt8], count: Int) {
        self.bytes = Array(bytes.prefix((count + 7) / 8))
        if self.bytes.count < (count + 7) / 8 {
            self.bytes += [UInt8](repeating: 0, count: (count + 7) / 8 - self.bytes.count)
        }
    }

    public func contains(_ index: Int) -> Bool {
        bytes[index / 8] & (1 << UInt8(index % 8)) != 0
    }

    public mutating func insert(_ index: Int) {
        bytes[index / 8] |= 1 << UInt8(index % 8)
    }
}
