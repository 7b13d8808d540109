/// Joins incoming WebSocket text frames into messages, as the SDK's `handleIncomingFrame`
/// reads them: a frame of one to six digits announces that many frames to follow (their text
/// joined is one message); any other frame is a whole message. A bare `0` outside a message is
/// the client's keep-alive and is ignored.
public struct FrameAssembler: Sendable {
    /// What one frame completed.
    public enum Output: Sendable, Equatable {
        /// A keep-alive (`0`): nothing to do.
        case keepAlive
        /// A frame count or a piece of a message: more frames are expected.
        case incomplete
        /// A complete message (its frames joined).
        case message([UInt8])
    }

    /// The largest message accepted, in bytes.
    public let maxMessageBytes: Int
    private var expectedFrames = 0
    private var buffer: [UInt8] = []

    /// - Parameter maxMessageBytes: larger messages are refused (Firebase's SDK write limit is
    ///   16 MB; the default leaves room for the envelope).
    public init(maxMessageBytes: Int = 16 * 1024 * 1024 + 64 * 1024) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// True while the frames of a multi-frame message are being collected.
    public var isCollecting: Bool { expectedFrames > 0 }

    /// Takes one text frame.
    /// - Throws: `ProtocolError` (`.messageTooLarge`) when a message grows past the limit.
    public mutating func append(_ frame: some Collection<UInt8>) throws -> Output {
        if expectedFrames > 0 {
            guard buffer.count + frame.count <= maxMessageBytes else {
                reset()
                throw ProtocolError(
                    .messageTooLarge,
                    "Message too large: messages can be at most \(maxMessageBytes) bytes."
                )
            }
            buffer.append(contentsOf: frame)
            expectedFrames -= 1
            if expectedFrames > 0 { return .incomplete }
            let message = buffer
            buffer = []
            return .message(message)
        }
        if frame.count <= 6, let count = Self.frameCount(frame) {
            if count == 0 { return .keepAlive }
            expectedFrames = count
            buffer.removeAll(keepingCapacity: false)
            return .incomplete
        }
        guard frame.count <= maxMessageBytes else {
            throw ProtocolError(
                .messageTooLarge,
                "Message too large: messages can be at most \(maxMessageBytes) bytes."
            )
        }
        return .message(Array(frame))
    }

    /// Takes one text frame held in a string.
    public mutating func append(_ frame: String) throws -> Output {
        try append(Array(frame.utf8))
    }

    /// Forgets a partly collected message.
    public mutating func reset() {
        expectedFrames = 0
        buffer = []
    }

    /// The number a frame of ASCII digits spells, or nil.
    static func frameCount(_ frame: some Collection<UInt8>) -> Int? {
        guard !frame.isEmpty else { return nil }
        var value = 0
        for byte in frame {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}
