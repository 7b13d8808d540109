import NIOCore

/// The outbound side of one realtime connection: already encoded WebSocket frames
/// (`WebSocketFrameBytes`) written below NIO's frame encoder, small push frames of a delivery
/// batch joined into one buffer, and one flush for everything written since the last.
///
/// Used on the connection's event loop only; `RealtimeChannelHandler` decides when to flush
/// (never while a batch of deliveries or its own pump is under way). A class, not a struct: a
/// write or flush can re-enter the handler on the same stack (a failed write closes the
/// channel, whose events reach the handler at once), which then writes or flushes again.
final class RealtimeFrameWriter {
    /// Frames up to this size are joined during a delivery batch; larger ones go as they are.
    static let joinLimit = 2048

    /// Where frames are written: the context of NIO's frame encoder (nil once the handler is
    /// removed: writes then fail or are dropped).
    var context: ChannelHandlerContext?
    /// Frames were written (or joined) since the last flush.
    private var needsFlush = false
    /// Push frames of the delivery batch being handled, joined into one buffer (one entry in
    /// the channel's write queue, not one per push); a lone frame is the loop's shared buffer.
    private var joined: ByteBuffer?
    private var joinedIsShared = false

    init(context: ChannelHandlerContext? = nil) {
        self.context = context
    }

    /// The handler was removed: nothing more is written, joined frames are dropped.
    func detach() {
        context = nil
        joined = nil
        needsFlush = false
    }

    /// Writes an encoded frame, after any joined frames (flushed by `flush`).
    func write(_ frame: ByteBuffer, promise: EventLoopPromise<Void>? = nil) {
        writeJoined()
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(NIOAny(frame), promise: promise)
        needsFlush = true
    }

    /// Writes a push frame shared with other connections. During a delivery batch (`joining`),
    /// a small one joins the batch's buffer: the first is kept as it is (the loop's shared
    /// buffer), and copied into a buffer of this connection's own when a second one arrives.
    func writeShared(_ frame: ByteBuffer, joining: Bool) {
        guard joining, frame.readableBytes <= Self.joinLimit else { return write(frame) }
        guard var buffer = joined else {
            guard context != nil else { return write(frame) }
            joined = frame
            joinedIsShared = true
            needsFlush = true
            return
        }
        joined = nil
        if joinedIsShared {
            var copy = ByteBufferAllocator().buffer(capacity: 2 * (buffer.readableBytes + frame.readableBytes))
            copy.writeImmutableBuffer(buffer)
            buffer = copy
            joinedIsShared = false
        }
        buffer.writeImmutableBuffer(frame)
        joined = buffer
    }

    /// Flushes what was written since the last flush, joined frames included.
    func flush() {
        guard needsFlush, let context else { return }
        writeJoined()
        needsFlush = false
        context.flush()
    }

    /// Hands the joined frames (if any) to the channel, before anything written after them.
    private func writeJoined() {
        guard let buffer = joined else { return }
        joined = nil
        context?.write(NIOAny(buffer), promise: nil)
    }
}
