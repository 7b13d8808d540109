import HearthProtocol
import NIOCore
import NIOWebSocket

/// Turns one connection's inbound data frames into whole messages: a single-frame message is
/// unmasked in one copy; a fragmented one is collected until its last continuation frame. A
/// message over `maxMessageBytes`, a continuation without a message or a new message before the
/// previous one ended is a failure that closes the connection.
struct RealtimeMessageAssembler {
    enum Outcome {
        /// A whole message, unmasked.
        case message([UInt8])
        /// More fragments are expected.
        case pending
        /// Close the connection with this code and reason.
        case failure(CloseCode, String)
    }

    let maxMessageBytes: Int
    /// The payload of a fragmented message so far.
    private var fragments: ByteBuffer?

    init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Takes a text, binary or continuation frame (other opcodes are the caller's).
    mutating func receive(_ frame: WebSocketFrame, allocator: ByteBufferAllocator) -> Outcome {
        if frame.opcode == .continuation {
            guard var buffer = fragments else {
                return .failure(.protocolError, "A continuation frame without a message.")
            }
            fragments = nil
            var data = frame.unmaskedData
            guard buffer.readableBytes + data.readableBytes <= maxMessageBytes else {
                return .failure(.messageTooBig, "Message too large.")
            }
            buffer.writeBuffer(&data)
            return append(buffer, fin: frame.fin)
        }
        guard fragments == nil else {
            fragments = nil
            return .failure(.protocolError, "A new message began before the previous one ended.")
        }
        if frame.fin { return .message(Self.payload(of: frame)) }
        var buffer = allocator.buffer(capacity: frame.length)
        var data = frame.unmaskedData
        buffer.writeBuffer(&data)
        return append(buffer, fin: false)
    }

    /// Forgets a message in progress (the connection ended).
    mutating func reset() {
        fragments = nil
    }

    /// Adds a fragment's payload; a message is handed over once its last fragment arrived.
    private mutating func append(_ buffer: ByteBuffer, fin: Bool) -> Outcome {
        guard buffer.readableBytes <= maxMessageBytes else {
            return .failure(.messageTooBig, "Message too large.")
        }
        if fin { return .message(Array(buffer.readableBytesView)) }
        fragments = buffer
        return .pending
    }

    /// The frame's payload, unmasked, in one copy.
    private static func payload(of frame: WebSocketFrame) -> [UInt8] {
        var bytes = Array(frame.data.readableBytesView)
        if let key = frame.maskKey {
            for index in bytes.indices { bytes[index] ^= key[index & 3] }
        }
        return bytes
    }
}
