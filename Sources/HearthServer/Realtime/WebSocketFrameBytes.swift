import NIOCore

/// Server-to-client WebSocket frames (final, unmasked) encoded straight into one buffer, header
/// and payload together: a frame is one buffer in the channel's write queue (one iovec), and the
/// same buffer can be written to every connection that sends the same push.
/// `RealtimeChannelHandler` writes these below NIO's `WebSocketFrameEncoder`.
enum WebSocketFrameBytes {
    static let text: UInt8 = 0x1
    static let close: UInt8 = 0x8
    static let ping: UInt8 = 0x9
    static let pong: UInt8 = 0xA

    /// A frame holding `payload`.
    static func frame(opcode: UInt8, _ payload: [UInt8], allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: payload.count + 10)
        writeHeader(opcode: opcode, length: payload.count, into: &buffer)
        buffer.writeBytes(payload)
        return buffer
    }

    /// A frame holding the readable bytes of `payload`.
    static func frame(opcode: UInt8, _ payload: ByteBuffer, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: payload.readableBytes + 10)
        writeHeader(opcode: opcode, length: payload.readableBytes, into: &buffer)
        var payload = payload
        buffer.writeBuffer(&payload)
        return buffer
    }

    /// A close frame: the code, then the reason (the session keeps it within 123 bytes).
    static func close(code: UInt16?, reason: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        let length = code == nil ? 0 : 2 + reason.utf8.count
        var buffer = allocator.buffer(capacity: length + 4)
        writeHeader(opcode: close, length: length, into: &buffer)
        if let code {
            buffer.writeInteger(code)
            buffer.writeString(reason)
        }
        return buffer
    }

    /// FIN + opcode, then the payload length in 7, 7+16 or 7+64 bits; no mask (server frames).
    static func writeHeader(opcode: UInt8, length: Int, into buffer: inout ByteBuffer) {
        buffer.writeInteger(0x80 | opcode)
        if length < 126 {
            buffer.writeInteger(UInt8(length))
        } else if length <= Int(UInt16.max) {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(length))
        } else {
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(length))
        }
    }
}
