import HearthCore
import HearthDatabase
import HearthProtocol
import Logging
import NIOCore
import NIOWebSocket

extension ListenRegistration: RealtimeListenHandle {}

extension RealtimeChannelHandler: RealtimeTickable, RealtimeInboxConnection {}

/// One realtime WebSocket connection on its event loop, after the upgrade: it feeds the
/// connection's events to its `RealtimeConnection` (which owns the `RealtimeSession` and
/// decides what happens, in which order) and performs the actions it returns — frames,
/// flushes, reads, closes, and the database work — with no task, stream or buffer of its own
/// while idle.
///
/// An action that needs the database (listen, write, get, onDisconnect, the re-check after an
/// identity change) runs off the loop — a write on the namespace writer's callbacks, the others
/// in a task of their own — and hops its outcome back with `eventLoop.execute`. Outbound frames
/// are encoded here (`WebSocketFrameBytes`) and written below NIO's frame encoder; the
/// channel's write-buffer high watermark is `maxQueuedBytes`, and a close frame that cannot be
/// flushed within `closeTimeout` drops the TCP connection.
///
/// `Sendable`: the engine calls `deliver` from its delivery queue and the tasks of database
/// actions capture the handler; off the loop they only reach its constants (`eventLoop`, the
/// upgrade, the loop inbox). Everything that changes lives in `LoopState`, which only the loop
/// reaches (`LoopConfined`, checked).
final class RealtimeChannelHandler: ChannelDuplexHandler, ListenSubscriber, Sendable {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = Never
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let eventLoop: any EventLoop
    let upgrade: RealtimeUpgrade
    var work: RealtimeWork { upgrade.work }
    var configuration: RealtimeConfiguration { upgrade.work.context.configuration }

    /// The deliveries of this loop's connections (one `execute` per burst for all of them).
    let loopInbox: RealtimeLoopInbox<RealtimeChannelHandler>

    /// What only the event loop touches.
    final class LoopState {
        /// Every decision of the connection.
        var connection: RealtimeConnection<ListenRegistration>
        /// Inside `run` (events arriving meanwhile are queued by the connection, not run
        /// re-entrantly).
        var running = false
        var context: ChannelHandlerContext?
        /// The position in the ticker's list of this loop's connections (-1: not ticked).
        var tickSlot = -1
        /// The position in the loop inbox's batch being drained (-1: none).
        var inboxSlot = -1
        var hubID: UInt64?
        /// Encoded frames out, small pushes of a batch joined.
        let frames = RealtimeFrameWriter()
        var closeTimer: Scheduled<Void>?
        /// Whole messages out of data frames (fragments collected, size bounded).
        var messages: RealtimeMessageAssembler
        /// The connection's count in server-kept presence while it acts as a user.
        var presence = RealtimePresence()

        init(connection: RealtimeConnection<ListenRegistration>, messages: RealtimeMessageAssembler) {
            self.connection = connection
            self.messages = messages
        }
    }

    private let loop: LoopConfined<LoopState>

    /// Made on `eventLoop`.
    init(upgrade: RealtimeUpgrade, eventLoop: any EventLoop) {
        self.upgrade = upgrade
        self.eventLoop = eventLoop
        self.loopInbox = upgrade.inboxes.inbox(for: eventLoop)
        let configuration = upgrade.work.context.configuration
        let connection = RealtimeConnection<ListenRegistration>(
            session: RealtimeSession(
                sessionID: upgrade.sessionID,
                configuration: RealtimeSessionConfiguration(
                    maxListens: configuration.maxListensPerConnection,
                    maxMessageBytes: configuration.maxMessageBytes
                )
            ),
            limits: upgrade.limits
        )
        self.loop = LoopConfined(
            LoopState(
                connection: connection,
                messages: RealtimeMessageAssembler(maxMessageBytes: configuration.maxMessageBytes)
            ),
            eventLoop: eventLoop
        )
    }

    // The loop's state by name (each access checked, `LoopConfined`).
    private var state: LoopState { loop.value(on: eventLoop) }
    var connection: RealtimeConnection<ListenRegistration> {
        get { state.connection }
        _modify { yield &state.connection }
    }
    var context: ChannelHandlerContext? {
        get { state.context }
        set { state.context = newValue }
    }
    var tickSlot: Int {
        get { state.tickSlot }
        set { state.tickSlot = newValue }
    }
    var inboxSlot: Int {
        get { state.inboxSlot }
        set { state.inboxSlot = newValue }
    }
    var hubID: UInt64? {
        get { state.hubID }
        set { state.hubID = newValue }
    }
    var presence: RealtimePresence {
        get { state.presence }
        _modify { yield &state.presence }
    }
    var frames: RealtimeFrameWriter { state.frames }
    var closeTimer: Scheduled<Void>? {
        get { state.closeTimer }
        set { state.closeTimer = newValue }
    }

    var logger: Logger {
        var logger = work.context.logger
        logger[metadataKey: "hearth.connection"] = "\(upgrade.sessionID)"
        logger[metadataKey: "hearth.ns"] = "\(work.namespace)"
        return logger
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let encoder = try? context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        // Frames are written at NIO's frame encoder, so the already encoded ones pass below it.
        frames.context = encoder ?? context
        let maxQueued = max(2, configuration.maxQueuedBytes)
        try? context.channel.syncOptions?.setOption(
            ChannelOptions.writeBufferWaterMark,
            value: ChannelOptions.Types.WriteBufferWaterMark(low: maxQueued / 2, high: maxQueued)
        )
        hubID = work.context.hub.register(namespace: work.namespace) { [self] in
            eventLoop.execute {
                self.connection.drain()
                self.run()
            }
        }
        upgrade.ticker.register(self, interval: configuration.tickInterval)
        logger.debug("realtime connected")
        connection.start(host: upgrade.host, now: Timestamp.now())
        run()
        if !context.channel.isActive {
            connection.ended()
            run()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        presence.end(work.context.presence)
        upgrade.ticker.unregister(self)
        closeTimer?.cancel()
        closeTimer = nil
        self.context = nil
        frames.detach()
    }

    func channelInactive(context: ChannelHandlerContext) {
        presence.end(work.context.presence)
        closeTimer?.cancel()
        closeTimer = nil
        upgrade.ticker.unregister(self)
        state.messages.reset()
        connection.ended()
        run()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        connection.frameArrived()
        loopInbox.frameRead()
        guard frame.reservedBits.isEmpty else {
            // No extension is negotiated, so no RSV bit may be set (RFC 6455 §5.2).
            return fail(.protocolError, "Reserved WebSocket frame bits set without an extension.")
        }
        switch frame.opcode {
        case .text, .binary, .continuation:
            switch state.messages.receive(frame, allocator: context.channel.allocator) {
            case .message(let bytes):
                connection.received(bytes, now: Timestamp.now())
                run()
            case .pending: break
            case .failure(let code, let reason): fail(code, reason)
            }
        case .ping:
            var payload = frame.unmaskedData
            connection.pingReceived(payload.readBytes(length: payload.readableBytes) ?? [])
            run()
        case .connectionClose:
            var data = frame.unmaskedData
            connection.closeReceived(code: data.readInteger(as: UInt16.self))
            run()
        case .pong:
            break
        default:
            // 0x3-0x7 and 0xB-0xF are reserved: the connection fails (RFC 6455 §5.2).
            fail(.protocolError, "Reserved WebSocket opcode \(UInt8(webSocketOpcode: frame.opcode)).")
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        connection.writabilityChanged(context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? NIOWebSocketError {
            switch error {
            case .invalidFrameLength:
                fail(.messageTooBig, "Frame too large.")
            default:
                fail(.protocolError, "Invalid WebSocket framing.")
            }
        } else {
            logger.debug("realtime channel error", metadata: ["hearth.error": "\(error)"])
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            connection.drain()
            run()
            return
        }
        if let event = event as? ChannelEvent, event == .inputClosed {
            // The client ended TCP (FIN) without a close frame: a process that exited, a socket
            // closed after reading. The channel allows half-closure (Hummingbird's HTTP needs
            // it), so NIO would otherwise keep the socket open, its session and slot held, until
            // a write failed. Closing ends the session (`channelInactive`): onDisconnect
            // operations run, listens are dropped, the slot is free. After a close frame (either
            // side's), the close under way hangs up once its frame is written (or times out).
            guard !connection.closeSent else { return }
            logger.debug("realtime connection ended by the client (TCP, no close frame)")
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func read(context: ChannelHandlerContext) {
        guard connection.readRequested() else { return }
        if loopInbox.shouldHoldReading(self) {
            connection.holdReading()
        } else {
            context.read()
        }
    }

    /// Fan-out caught up (`RealtimeLoopInbox`): read again, unless too many frames still wait.
    func resumeReading() {
        guard let context, connection.fanoutCaughtUp() else { return }
        context.read()
    }

    private func fail(_ code: CloseCode, _ reason: String) {
        connection.failed(code, reason)
        run()
    }

    // MARK: Engine deliveries and ticks

    /// Called from the engine's delivery queue: hands the push to the loop's inbox.
    func deliver(_ update: EncodedUpdate, for registration: ListenRegistration) {
        loopInbox.append(self, .update(update, id: registration.id, key: registration.key))
    }

    /// Called from the engine's delivery queue, after the listen's last delivery.
    func revoked(_ registration: ListenRegistration) {
        loopInbox.append(self, .revoked(id: registration.id, key: registration.key))
    }

    /// Called by the loop inbox before it hands over this connection's deliveries of a batch
    /// (flushes wait until `endDeliveries`).
    func beginDeliveries() {
        connection.beginDeliveries()
    }

    /// One delivery, from the loop inbox, in delivery order.
    func receive(_ delivery: RealtimeDelivery) {
        switch delivery {
        case .update(let update, let id, let key):
            let state = self.state
            if !state.running, state.connection.takesSharedPush(update, id: id) {
                let joining = state.connection.holdFlush
                writeShared(update, joining: joining)
                if joining { return }
            } else {
                state.connection.deliver(update, id: id, key: key)
            }
        case .revoked(let id, let key): connection.revoked(id: id, key: key)
        case .answer(let answer): connection.answered(answer.outcome, for: answer.requestID)
        }
        run()
    }

    /// The loop inbox handed over this batch's deliveries: one flush for them all.
    func endDeliveries() {
        connection.endDeliveries()
        run()
    }

    /// Called by `RealtimeTicker` on the loop.
    func tick(now: Timestamp) {
        let work = self.work
        connection.tick(now: now) { work.engine.onDisconnectCount(connection: work.connection) > 0 }
        run()
    }

    // MARK: Performing actions

    /// Performs the connection's actions until it waits.
    func run() {
        let loop = state
        guard !loop.running else { return }
        loop.running = true
        while let action = loop.connection.nextAction() { perform(action) }
        loop.running = false
    }

    /// Writes the loop's shared frame of `update` (joined with the batch's others while `joining`).
    private func writeShared(_ update: EncodedUpdate, joining: Bool) {
        frames.writeShared(loopInbox.frame(for: update), joining: joining)
    }

    private func perform(_ action: RealtimeConnection<ListenRegistration>.Action) {
        switch action {
        case .sendText(let frame):
            guard let context else { return }
            frames.write(
                WebSocketFrameBytes.frame(opcode: WebSocketFrameBytes.text, frame, allocator: context.channel.allocator)
            )
        case .sendShared(let update, let joining):
            writeShared(update, joining: joining)
        case .sendPing:
            guard let context else { return }
            frames.write(
                WebSocketFrameBytes.frame(opcode: WebSocketFrameBytes.ping, [], allocator: context.channel.allocator)
            )
        case .sendPong(let payload):
            guard let context else { return }
            frames.write(
                WebSocketFrameBytes.frame(
                    opcode: WebSocketFrameBytes.pong,
                    payload,
                    allocator: context.channel.allocator
                )
            )
        case .sendClose(let code, let reason):
            closeWebSocket(code: code, reason: reason)
        case .echoClose(let code):
            echoClose(code: code)
        case .dropConnection:
            logger.debug("realtime connection dropped (ping not answered, or closed by both sides)")
            context?.close(promise: nil)
        case .flush:
            frames.flush()
        case .read:
            context?.read()
        case .reportSlowConsumer:
            logger.notice(
                "realtime slow consumer",
                metadata: ["hearth.max_queued_bytes": "\(configuration.maxQueuedBytes)"]
            )
        case .authenticate(let request, let requestID):
            connection.completed(work.context.credentials.authenticate(request), for: requestID)
        case .identityChanged(let identity):
            presence.identify(identity, namespace: work.namespace, in: work.context.presence)
        case .unregister(let registration):
            work.engine.unlisten(registration)
        case .finish(let registrations):
            finish(registrations)
        case .listen, .write, .get, .registerOnDisconnect, .cancelOnDisconnect, .recheckListens:
            startDatabaseAction(action)
        }
    }
}
