import HearthCore
import HearthDatabase
import HearthProtocol
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// One realtime WebSocket connection on its event loop, after the upgrade: it owns the
/// `RealtimeSession`, the engine registrations of its listens and the outbound path, with no
/// task, stream or buffer of its own while idle.
///
/// Everything that reaches the session is an `Event` handled on the loop, in order. An action
/// that needs the database (listen, write, get, onDisconnect, the re-check after an identity
/// change) runs in a task of its own and hops its outcome back with `eventLoop.execute`; until
/// then the connection is *busy*: later events (frames, engine deliveries, ticks, drain, the
/// end of the socket) wait in a backlog, so a listen's data always leaves before the
/// deliveries that raced it, as `ListenSubscriber` requires. Reading pauses while more than
/// `maxUnhandledFrames` frames wait.
///
/// Outbound frames are written as the session emits them and flushed once per event or batch of
/// engine deliveries. The channel's write-buffer high watermark is `maxQueuedBytes`: a batch
/// that finds the channel unwritable (more than that many bytes written and not yet taken by
/// the socket) closes the connection with 1008 "slow consumer"; a close frame that cannot be
/// flushed within `closeTimeout` drops the TCP connection.
///
/// `@unchecked Sendable`: the engine calls `deliver` from its delivery queue and the tasks of
/// database actions capture the handler, but they only touch `eventLoop` and the lock-protected
/// `inbox`; every other member is used on the event loop only.
final class RealtimeChannelHandler: ChannelDuplexHandler, ListenSubscriber, @unchecked Sendable {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = Never
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private enum Event {
        /// A whole text (or binary) message from the client.
        case frame([UInt8])
        /// An engine push for a listen.
        case update(EncodedUpdate, ListenRegistration)
        /// The engine revoked a listen (read access lost).
        case revoked(ListenRegistration)
        case tick(Timestamp)
        /// Graceful shutdown: close with 1001.
        case drain
        /// The transport failed (bad framing, message too large): close with `code`.
        case fail(CloseCode, String)
        /// The socket ended (close frame, reset, EOF).
        case ended
    }

    /// Engine deliveries waiting for the loop; drained by one `execute` per burst.
    private struct Inbox {
        /// `.update` and `.revoked` events, in delivery order.
        var updates: [Event] = []
        var scheduled = false
    }

    let eventLoop: any EventLoop
    private let upgrade: RealtimeUpgrade
    private var work: RealtimeWork { upgrade.work }
    private var configuration: RealtimeConfiguration { upgrade.work.context.configuration }

    private var session: RealtimeSession
    /// Engine registrations by listen key.
    private var registrations: [ListenKey: ListenRegistration] = [:]
    private var context: ChannelHandlerContext?
    /// The position in the ticker's list of this loop's connections (-1: not ticked).
    var tickSlot = -1
    private var hubID: UInt64?

    /// The actions of the event being handled; `actions[actionIndex...]` are still to do.
    private var actions: [SessionAction] = []
    private var actionIndex = 0
    /// A database action is in flight: events wait in the backlog.
    private var busy = false
    /// Inside `pump` (events arriving meanwhile are queued, not handled re-entrantly).
    private var pumping = false
    /// Flushes are held while a batch of deliveries is handled.
    private var holdFlush = false
    private var backlog: [Event] = []
    private var backlogHead = 0
    /// Frames in the backlog; reading pauses at `maxUnhandledFrames`.
    private var backlogFrames = 0
    /// A `read` was held back while too many frames waited.
    private var readHeld = false

    /// Frames were written since the last flush.
    private var needsFlush = false
    /// The previous action was a `.send` (consecutive sends are one batch).
    private var inBatch = false
    private var slowConsumer = false
    /// A close frame went out (either side's): nothing more is sent.
    private var closeSent = false
    /// The session's `.connectionClosed` was performed.
    private var finished = false
    private var closeTimer: Scheduled<Void>?
    /// The payload of a fragmented message so far.
    private var fragments: ByteBuffer?
    /// Liveness (`webSocketPingInterval`): a frame arrived since the last check; a ping is
    /// unanswered; when the next check is due (ms since 1970).
    private var sawInbound = false
    private var pingSent = false
    private var nextPeerCheck: Int64 = 0

    private let inbox = Mutex(Inbox())

    init(upgrade: RealtimeUpgrade, eventLoop: any EventLoop) {
        self.upgrade = upgrade
        self.eventLoop = eventLoop
        self.session = RealtimeSession(
            sessionID: upgrade.sessionID,
            configuration: RealtimeSessionConfiguration(
                maxMessageBytes: upgrade.work.context.configuration.maxMessageBytes
            )
        )
    }

    private var logger: Logger {
        var logger = work.context.logger
        logger[metadataKey: "hearth.connection"] = "\(upgrade.sessionID)"
        logger[metadataKey: "hearth.ns"] = "\(work.namespace)"
        return logger
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let maxQueued = max(2, configuration.maxQueuedBytes)
        try? context.channel.syncOptions?.setOption(
            ChannelOptions.writeBufferWaterMark,
            value: ChannelOptions.Types.WriteBufferWaterMark(low: maxQueued / 2, high: maxQueued)
        )
        hubID = work.context.hub.register { [self] in
            eventLoop.execute { self.handle(.drain) }
        }
        upgrade.ticker.register(self, interval: configuration.tickInterval)
        logger.debug("realtime connected")
        let now = RealtimeConnection.now()
        if let interval = configuration.webSocketPingInterval {
            nextPeerCheck = now.millisecondsSince1970 + RealtimeTicker.nanoseconds(interval) / 1_000_000
        }
        pump(starting: session.connected(host: upgrade.host, now: now))
        if !context.channel.isActive { handle(.ended) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        upgrade.ticker.unregister(self)
        closeTimer?.cancel()
        closeTimer = nil
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeTimer?.cancel()
        closeTimer = nil
        upgrade.ticker.unregister(self)
        fragments = nil
        handle(.ended)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        sawInbound = true
        switch frame.opcode {
        case .text, .binary:
            guard fragments == nil else {
                fragments = nil
                return handle(.fail(.protocolError, "A new message began before the previous one ended."))
            }
            if frame.fin {
                handle(.frame(Self.payload(of: frame)))
            } else {
                var buffer = context.channel.allocator.buffer(capacity: frame.length)
                var data = frame.unmaskedData
                buffer.writeBuffer(&data)
                append(buffer, fin: false)
            }
        case .continuation:
            guard var buffer = fragments else {
                return handle(.fail(.protocolError, "A continuation frame without a message."))
            }
            fragments = nil
            var data = frame.unmaskedData
            guard buffer.readableBytes + data.readableBytes <= configuration.maxMessageBytes else {
                return handle(.fail(.messageTooBig, "Message too large."))
            }
            buffer.writeBuffer(&data)
            append(buffer, fin: frame.fin)
        case .ping:
            guard !closeSent else { return }
            context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
            needsFlush = true
            flushIfNeeded()
        case .connectionClose:
            if closeSent {
                context.close(promise: nil)
            } else {
                // Echo the client's code, then hang up.
                closeSent = true
                var data = frame.unmaskedData
                var echo = context.channel.allocator.buffer(capacity: 2)
                if let code = data.readInteger(as: UInt16.self) { echo.writeInteger(code) }
                let loopBound = NIOLoopBound(context, eventLoop: eventLoop)
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: echo)))
                    .whenComplete { _ in loopBound.value.close(promise: nil) }
            }
            handle(.ended)
        default:
            break
        }
    }

    /// Adds a fragment's payload; a message is handed over once its last fragment arrived.
    private func append(_ buffer: ByteBuffer, fin: Bool) {
        guard buffer.readableBytes <= configuration.maxMessageBytes else {
            return handle(.fail(.messageTooBig, "Message too large."))
        }
        if fin {
            handle(.frame(Array(buffer.readableBytesView)))
        } else {
            fragments = buffer
        }
    }

    /// The frame's payload, unmasked, in one copy.
    private static func payload(of frame: WebSocketFrame) -> [UInt8] {
        var bytes = Array(frame.data.readableBytesView)
        if let key = frame.maskKey {
            for index in bytes.indices { bytes[index] ^= key[index & 3] }
        }
        return bytes
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? NIOWebSocketError {
            switch error {
            case .invalidFrameLength:
                handle(.fail(.messageTooBig, "Frame too large."))
            default:
                handle(.fail(.protocolError, "Invalid WebSocket framing."))
            }
        } else {
            logger.debug("realtime channel error", metadata: ["hearth.error": "\(error)"])
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            handle(.drain)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func read(context: ChannelHandlerContext) {
        if backlogFrames >= configuration.maxUnhandledFrames {
            readHeld = true
        } else {
            context.read()
        }
    }

    // MARK: Engine deliveries and ticks

    /// Called from the engine's delivery queue: hands the push to the loop, one hop per burst.
    func deliver(_ update: EncodedUpdate, for registration: ListenRegistration) {
        let schedule = inbox.withLock { inbox -> Bool in
            inbox.updates.append(.update(update, registration))
            if inbox.scheduled { return false }
            inbox.scheduled = true
            return true
        }
        if schedule {
            eventLoop.execute { self.drainInbox() }
        }
    }

    /// Called from the engine's delivery queue, after the listen's last delivery.
    func revoked(_ registration: ListenRegistration) {
        let schedule = inbox.withLock { inbox -> Bool in
            inbox.updates.append(.revoked(registration))
            if inbox.scheduled { return false }
            inbox.scheduled = true
            return true
        }
        if schedule {
            eventLoop.execute { self.drainInbox() }
        }
    }

    private func drainInbox() {
        let updates = inbox.withLock { inbox -> [Event] in
            defer {
                inbox.updates = []
                inbox.scheduled = false
            }
            return inbox.updates
        }
        holdFlush = true
        for event in updates { handle(event) }
        holdFlush = false
        flushIfNeeded()
    }

    /// Called by `RealtimeTicker` on the loop.
    func tick(now: Timestamp) {
        guard !finished else { return }
        if nextPeerCheck > 0, now.millisecondsSince1970 >= nextPeerCheck { checkPeer(now) }
        // A busy connection gets the next one.
        guard !busy else { return }
        handle(.tick(now))
    }

    /// Pings a connection that was silent for a whole interval; drops it when it stays silent
    /// for another (a peer that vanished without closing TCP).
    private func checkPeer(_ now: Timestamp) {
        guard let interval = configuration.webSocketPingInterval, let context else { return }
        nextPeerCheck = now.millisecondsSince1970 + RealtimeTicker.nanoseconds(interval) / 1_000_000
        if sawInbound {
            sawInbound = false
            pingSent = false
        } else if pingSent {
            logger.debug("realtime ping not answered; dropping the connection")
            context.close(promise: nil)
        } else if !closeSent {
            pingSent = true
            let frame = WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(capacity: 0))
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        }
    }

    // MARK: The serial loop

    private func handle(_ event: Event) {
        if busy || pumping || backlogHead < backlog.count {
            if case .frame = event { backlogFrames += 1 }
            backlog.append(event)
            if !busy, !pumping { pump(starting: []) }
            return
        }
        pump(starting: actions(for: event))
    }

    /// Performs `first`, then backlogged events, until done or a database action is in flight.
    private func pump(starting first: [SessionAction]) {
        pumping = true
        if !first.isEmpty { insertNext(first) }
        while true {
            performActions()
            if busy { break }
            guard backlogHead < backlog.count else { break }
            let event = backlog[backlogHead]
            backlogHead += 1
            if case .frame = event { backlogFrames -= 1 }
            if backlogHead == backlog.count {
                backlog = []
                backlogHead = 0
            }
            insertNext(actions(for: event))
        }
        pumping = false
        flushIfNeeded()
        if readHeld, backlogFrames < configuration.maxUnhandledFrames, let context {
            readHeld = false
            context.read()
        }
    }

    private func actions(for event: Event) -> [SessionAction] {
        switch event {
        case .frame(let bytes):
            return session.received(frame: bytes, now: RealtimeConnection.now())
        case .update(let update, let registration):
            let key = registration.key
            guard registrations[key]?.id == registration.id else { return [] }
            return session.push(encoded: update, for: key)
        case .revoked(let registration):
            let key = registration.key
            guard registrations[key]?.id == registration.id else { return [] }
            registrations[key] = nil
            return session.revokeListen(key)
        case .tick(let now):
            return session.tick(now: now)
        case .drain:
            return session.close(code: .goingAway, reason: "The server is shutting down.")
        case .fail(let code, let reason):
            return session.close(code: code, reason: reason)
        case .ended:
            return session.closed()
        }
    }

    private func insertNext(_ next: [SessionAction]) {
        guard !next.isEmpty else { return }
        if actionIndex >= actions.count {
            actions = next
            actionIndex = 0
        } else {
            actions.insert(contentsOf: next, at: actionIndex)
        }
    }

    /// Performs the pending actions in order, until done or one waits for the database.
    private func performActions() {
        while actionIndex < actions.count {
            let action = actions[actionIndex]
            actionIndex += 1
            if case .send(let frame) = action {
                send(frame)
                continue
            }
            inBatch = false
            switch action {
            case .send:
                break
            case .close(let code, let reason):
                closeWebSocket(code: code, reason: reason)
            case .connectionClosed:
                connectionClosed()
            case .unlisten(let key):
                if let registration = registrations.removeValue(forKey: key) { work.engine.unlisten(registration) }
            case .stats:
                break
            case .authenticate(let request, let requestID):
                insertNext(session.completed(work.context.credentials.authenticate(request), for: requestID))
            case .listen, .write, .get, .registerOnDisconnect, .cancelOnDisconnect, .identityChanged:
                startDatabaseAction(action)
                if busy { return }
            }
        }
        inBatch = false
        actions = []
        actionIndex = 0
    }

    // MARK: Database actions

    private func startDatabaseAction(_ action: SessionAction) {
        let work = self.work
        switch action {
        case .listen(let request, let requestID, let identity):
            let key = request.key
            if let old = registrations.removeValue(forKey: key) { work.engine.unlisten(old) }
            busy = true
            Task {
                let (outcome, registration) = await work.listen(request, identity: identity, subscriber: self)
                self.eventLoop.execute {
                    self.listenCompleted(outcome, for: requestID, key: key, registration: registration)
                }
            }
        case .write(let request, let requestID, let identity):
            run(requestID) { await work.write(request, identity: identity) }
        case .get(let request, let requestID, let identity):
            run(requestID) { await work.get(request, identity: identity) }
        case .registerOnDisconnect(let request, let requestID, let identity):
            run(requestID) { await work.registerOnDisconnect(request, identity: identity) }
        case .cancelOnDisconnect(let path, let requestID, let identity):
            run(requestID) { await work.cancelOnDisconnect(at: path, identity: identity) }
        case .identityChanged(let identity):
            let listens = session.listenKeys.map { key -> (ListenKey, Query?) in
                (key, key.query == .default ? nil : session.listen(for: key)?.query)
            }
            guard !listens.isEmpty else { return }
            busy = true
            Task {
                let keys = await work.unreadable(listens, identity: identity)
                self.eventLoop.execute { self.revoke(keys) }
            }
        default:
            break
        }
    }

    private func run(_ requestID: RequestID, _ body: @escaping @Sendable () async -> RequestOutcome) {
        busy = true
        Task {
            let outcome = await body()
            self.eventLoop.execute { self.completed(outcome, for: requestID) }
        }
    }

    private func completed(_ outcome: RequestOutcome, for requestID: RequestID) {
        busy = false
        pump(starting: session.completed(outcome, for: requestID))
    }

    private func listenCompleted(
        _ outcome: RequestOutcome,
        for requestID: RequestID,
        key: ListenKey,
        registration: ListenRegistration?
    ) {
        busy = false
        if let registration {
            if finished {
                work.engine.unlisten(registration)
            } else {
                registrations[key] = registration
            }
        }
        pump(starting: session.completed(outcome, for: requestID))
    }

    /// Revokes the listens the new identity may no longer read.
    private func revoke(_ keys: [ListenKey]) {
        busy = false
        var next: [SessionAction] = []
        for key in keys {
            if let registration = registrations.removeValue(forKey: key) { work.engine.unlisten(registration) }
            next += session.revokeListen(key)
        }
        pump(starting: next)
    }

    // MARK: Outbound

    private func send(_ frame: [UInt8]) {
        guard !closeSent, !slowConsumer, let context else { return }
        if !inBatch {
            inBatch = true
            if !context.channel.isWritable {
                slowConsumer = true
                logger.notice("realtime slow consumer", metadata: ["hearth.max_queued_bytes": "\(configuration.maxQueuedBytes)"])
                insertNext(
                    session.close(
                        code: .policyViolation,
                        reason: "Slow consumer: more than \(configuration.maxQueuedBytes) bytes waited to be sent."
                    )
                )
                return
            }
        }
        let buffer = context.channel.allocator.buffer(bytes: frame)
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)), promise: nil)
        needsFlush = true
    }

    /// Sends a close frame; the TCP connection ends when the client answers it, or after
    /// `closeTimeout` (a client that stopped reading never gets it flushed).
    private func closeWebSocket(code: CloseCode, reason: String) {
        guard !closeSent, let context else { return }
        closeSent = true
        var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        data.writeInteger(code.rawValue)
        data.writeString(reason)
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
        needsFlush = true
        let timeout = TimeAmount.nanoseconds(RealtimeTicker.nanoseconds(configuration.closeTimeout))
        closeTimer = eventLoop.scheduleTask(in: timeout) { [self] in
            if let context = self.context {
                logger.debug("realtime close not answered; dropping the connection")
                context.close(promise: nil)
            }
        }
    }

    private func flushIfNeeded() {
        guard needsFlush, !holdFlush, !pumping, let context else { return }
        needsFlush = false
        context.flush()
    }

    /// Drops the listeners and runs the connection's onDisconnect writes; the hub learns the
    /// connection is gone once they are done.
    private func connectionClosed() {
        guard !finished else { return }
        finished = true
        upgrade.ticker.unregister(self)
        for registration in registrations.values { work.engine.unlisten(registration) }
        registrations = [:]
        let hub = work.context.hub
        let hubID = self.hubID
        self.hubID = nil
        logger.debug("realtime closed")
        if work.engine.onDisconnectCount(connection: work.connection) == 0 {
            if let hubID { hub.unregister(hubID) }
            return
        }
        let work = self.work
        Task {
            await work.engine.runOnDisconnect(connection: work.connection)
            if let hubID { hub.unregister(hubID) }
        }
    }
}
