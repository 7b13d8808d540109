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
            unmask(&bytes, key: (key[0], key[1], key[2], key[3]))
        }
        return bytes
    }

    /// XORs `bytes` with the 4-byte masking key, eight bytes at a time.
    static func unmask(_ bytes: inout [UInt8], key: (UInt8, UInt8, UInt8, UInt8)) {
        // Byte j of the payload is XORed with key[j % 4]: as a little-endian word, the key
        // repeated.
        let key32 = UInt32(key.0) | UInt32(key.1) << 8 | UInt32(key.2) << 16 | UInt32(key.3) << 24
        let word = (UInt64(key32) | UInt64(key32) << 32).littleEndian
        bytes.withUnsafeMutableBytes { raw in
            let count = raw.count
            var i = 0
            while i + 8 <= count {
                let value = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                raw.storeBytes(of: value ^ word, toByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < count {
                raw[i] ^= UInt8(truncatingIfNeeded: key32 >> (8 * UInt32(i & 3)))
                i += 1
            }
        }
    }
}
