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
/// change) runs off the loop — a write on the namespace writer's callbacks, the others in a
/// task of their own — and hops its outcome back with `eventLoop.execute`; until then the
/// connection is *busy*: later events (frames, engine deliveries, ticks, drain, the
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
        /// An engine push for a listen (its registration's id and key).
        case update(EncodedUpdate, id: UInt64, key: ListenKey)
        /// The engine revoked a listen (read access lost).
        case revoked(id: UInt64, key: ListenKey)
        case tick(Timestamp)
        /// Graceful shutdown: close with 1001.
        case drain
        /// The transport failed (bad framing, message too large): close with `code`.
        case fail(CloseCode, String)
        /// The socket ended (close frame, reset, EOF).
        case ended
    }

    let eventLoop: any EventLoop
    private let upgrade: RealtimeUpgrade
    private var work: RealtimeWork { upgrade.work }
    private var configuration: RealtimeConfiguration { upgrade.work.context.configuration }

    private var sessionState: RealtimeSession
    private var registrationTable: [ListenKey: ListenRegistration] = [:]
    /// The registration whose pushes go out as the loop's shared frame (an untagged listen the
    /// session holds), until the session or the registrations change; 0: none.
    private var sharedRegistration: UInt64 = 0

    /// The session; any change to it forgets `sharedRegistration`.
    private var session: RealtimeSession {
        _read { yield sessionState }
        _modify {
            sharedRegistration = 0
            yield &sessionState
        }
    }

    /// Engine registrations by listen key; any change forgets `sharedRegistration`.
    private var registrations: [ListenKey: ListenRegistration] {
        _read { yield registrationTable }
        _modify {
            sharedRegistration = 0
            yield &registrationTable
        }
    }
    private var context: ChannelHandlerContext?
    /// The position in the ticker's list of this loop's connections (-1: not ticked).
    var tickSlot = -1
    /// The position in the loop inbox's batch being drained (-1: none).
    var inboxSlot = -1
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

    /// Encoded frames out, small pushes of a batch joined, one flush per event or batch.
    private let frames = RealtimeFrameWriter()
    /// The previous action was a `.send` (consecutive sends are one batch).
    private var inBatch = false
    private var slowConsumer = false
    /// The channel's writability, as `channelWritabilityChanged` reports it.
    private var writable = true
    /// A close frame went out (either side's): nothing more is sent.
    private var closeSent = false
    /// The session's `.connectionClosed` was performed.
    private var finished = false
    private var closeTimer: Scheduled<Void>?
    /// Whole messages out of data frames (fragments collected, size bounded).
    private var messages: RealtimeMessageAssembler
    /// Liveness (`webSocketPingInterval`): a frame arrived since the last check; a ping is
    /// unanswered; when the next check is due (ms since 1970).
    private var sawInbound = false
    private var pingSent = false
    private var nextPeerCheck: Int64 = 0
    /// When a connection that has not authenticated, listened or registered an onDisconnect
    /// operation is closed if it stays silent until then (ms since 1970; 0: never).
    private var authOrListenDeadline: Int64 = 0
    /// A request (anything but the SDK's keep-alive `0`) arrived since the last tick: the
    /// deadline moves on, so an anonymous client that only writes is not cut off between writes.
    private var requestSinceTick = false

    /// The deliveries of this loop's connections (one `execute` per burst for all of them).
    private let loopInbox: RealtimeLoopInbox

    init(upgrade: RealtimeUpgrade, eventLoop: any EventLoop) {
        self.upgrade = upgrade
        self.eventLoop = eventLoop
        self.loopInbox = upgrade.inboxes.inbox(for: eventLoop)
        self.messages = RealtimeMessageAssembler(maxMessageBytes: upgrade.work.context.configuration.maxMessageBytes)
        self.sessionState = RealtimeSession(
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
        let encoder = try? context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        // Frames are written at NIO's frame encoder, so the already encoded ones pass below it.
        frames.context = encoder ?? context
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
        let now = Timestamp.now()
        if let interval = configuration.webSocketPingInterval {
            nextPeerCheck = now.millisecondsSince1970 + RealtimeTicker.nanoseconds(interval) / 1_000_000
        }
        if let timeout = configuration.authOrListenTimeout {
            authOrListenDeadline = now.millisecondsSince1970 + RealtimeTicker.nanoseconds(timeout) / 1_000_000
        }
        pump(starting: session.connected(host: upgrade.host, now: now))
        if !context.channel.isActive { handle(.ended) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        upgrade.ticker.unregister(self)
        closeTimer?.cancel()
        closeTimer = nil
        self.context = nil
        frames.detach()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeTimer?.cancel()
        closeTimer = nil
        upgrade.ticker.unregister(self)
        messages.reset()
        handle(.ended)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        sawInbound = true
        guard frame.reservedBits.isEmpty else {
            // No extension is negotiated, so no RSV bit may be set (RFC 6455 §5.2).
            return handle(.fail(.protocolError, "Reserved WebSocket frame bits set without an extension."))
        }
        switch frame.opcode {
        case .text, .binary, .continuation:
            switch messages.receive(frame, allocator: context.channel.allocator) {
            case .message(let bytes):
                if bytes.count != 1 { requestSinceTick = true }
                handle(.frame(bytes))
            case .pending: break
            case .failure(let code, let reason): handle(.fail(code, reason))
            }
        case .ping:
            guard !closeSent else { return }
            let allocator = context.channel.allocator
            frames.write(
                WebSocketFrameBytes.frame(opcode: WebSocketFrameBytes.pong, frame.unmaskedData, allocator: allocator)
            )
            flushIfNeeded()
        case .connectionClose:
            if closeSent {
                context.close(promise: nil)
            } else {
                // Echo the client's code, then hang up.
                closeSent = true
                var data = frame.unmaskedData
                let code = data.readInteger(as: UInt16.self)
                let echo = WebSocketFrameBytes.close(code: code, reason: "", allocator: context.channel.allocator)
                let loopBound = NIOLoopBound(context, eventLoop: eventLoop)
                let written = eventLoop.makePromise(of: Void.self)
                written.futureResult.whenComplete { _ in loopBound.value.close(promise: nil) }
                frames.write(echo, promise: written)
                frames.flush()
            }
            handle(.ended)
        case .pong:
            break
        default:
            // 0x3-0x7 and 0xB-0xF are reserved: the connection fails (RFC 6455 §5.2).
            handle(.fail(.protocolError, "Reserved WebSocket opcode \(UInt8(webSocketOpcode: frame.opcode))."))
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        writable = context.channel.isWritable
        context.fireChannelWritabilityChanged()
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
        if backlogFrames >= configuration.maxUnhandledFrames || loopInbox.shouldHoldReading(self) {
            readHeld = true
        } else {
            context.read()
        }
    }

    /// Fan-out caught up (`RealtimeLoopInbox`): read again, unless too many frames still wait.
    func resumeReading() {
        guard readHeld, backlogFrames < configuration.maxUnhandledFrames, let context else { return }
        readHeld = false
        context.read()
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
        holdFlush = true
    }

    /// One delivery, from the loop inbox, in delivery order.
    func receive(_ delivery: RealtimeLoopInbox.Delivery) {
        switch delivery {
        case .update(let update, let id, let key):
            // The common case without the event machinery: a push for the listen known to take
            // the shared frame, while nothing else waits.
            if id == sharedRegistration, !busy, !pumping, backlogHead == backlog.count,
                update.message.count <= sessionState.configuration.maxFrameLength
            {
                if admitBatch() {
                    frames.writeShared(loopInbox.frame(for: update), joining: holdFlush)
                } else {
                    pump(starting: [])  // the close admitBatch queued
                }
                return
            }
            handle(.update(update, id: id, key: key))
        case .revoked(let id, let key): handle(.revoked(id: id, key: key))
        }
    }

    /// The loop inbox handed over this batch's deliveries: one flush for them all.
    func endDeliveries() {
        holdFlush = false
        flushIfNeeded()
    }

    /// Called by `RealtimeTicker` on the loop.
    func tick(now: Timestamp) {
        guard !finished else { return }
        if nextPeerCheck > 0, now.millisecondsSince1970 >= nextPeerCheck { checkPeer(now) }
        if authOrListenDeadline > 0, let timeout = configuration.authOrListenTimeout {
            let next = now.millisecondsSince1970 + RealtimeTicker.nanoseconds(timeout) / 1_000_000
            if requestSinceTick {
                requestSinceTick = false
                authOrListenDeadline = next
            } else if now.millisecondsSince1970 >= authOrListenDeadline, !busy,
                // An `auth` may be in flight or queued: checked again once it is answered.
                sessionState.pendingRequestCount == 0
            {
                if sessionState.identity.role == .anonymous, sessionState.listenCount == 0,
                    work.engine.onDisconnectCount(connection: work.connection) == 0
                {
                    authOrListenDeadline = 0
                    let seconds = timeout.components.seconds
                    handle(.fail(.policyViolation, "No auth, listen or request within \(seconds) seconds."))
                    return
                }
                // Checked again later: credentials expire, listens and onDisconnect operations end.
                authOrListenDeadline = next
            }
        }
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
            frames.write(
                WebSocketFrameBytes.frame(opcode: WebSocketFrameBytes.ping, [], allocator: context.channel.allocator)
            )
            flushIfNeeded()
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
            return session.received(frame: bytes, now: Timestamp.now())
        case .update(let update, let id, let key):
            // A push for an untagged listen that fits one frame goes out as the loop's shared
            // frame, as `session.push(encoded:for:)` would send it.
            let fits = update.message.count <= sessionState.configuration.maxFrameLength
            if id == sharedRegistration, fits {
                if admitBatch() { frames.writeShared(loopInbox.frame(for: update), joining: holdFlush) }
                return []
            }
            guard registrations[key]?.id == id else { return [] }
            if fits, sessionState.holdsUntaggedListen(key) {
                sharedRegistration = id
                if admitBatch() { frames.writeShared(loopInbox.frame(for: update), joining: holdFlush) }
                return []
            }
            return session.push(encoded: update, for: key)
        case .revoked(let id, let key):
            guard registrations[key]?.id == id else { return [] }
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
            // No task: the writer's completion hops straight to this loop.
            busy = true
            let eventLoop = self.eventLoop
            work.write(request, identity: identity) { outcome in
                if eventLoop.inEventLoop {
                    self.completed(outcome, for: requestID)
                } else {
                    eventLoop.execute { self.completed(outcome, for: requestID) }
                }
            }
        case .get(let request, let requestID, let identity):
            run(requestID) { await work.get(request, identity: identity) }
        case .registerOnDisconnect(let request, let requestID, let identity):
            run(requestID) { await work.registerOnDisconnect(request, identity: identity) }
        case .cancelOnDisconnect(let path, let requestID, let identity):
            run(requestID) { await work.cancelOnDisconnect(at: path, identity: identity) }
        case .identityChanged(let identity):
            let listens = registrations.map { ($0.key, $0.value) }
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

    /// Runs a short database action in a task on this loop (it suspends while the store works,
    /// and resumes here).
    private func run(_ requestID: RequestID, _ body: @escaping @Sendable () async -> RequestOutcome) {
        busy = true
        Task(executorPreference: loopInbox.executor) {
            let outcome = await body()
            if self.eventLoop.inEventLoop {
                self.completed(outcome, for: requestID)
            } else {
                self.eventLoop.execute { self.completed(outcome, for: requestID) }
            }
        }
    }

    private func completed(_ outcome: RequestOutcome, for requestID: RequestID) {
        busy = false
        let next = session.completed(outcome, for: requestID)
        // Completed while this connection's own pump runs (the action finished at once): the
        // running pump goes on with the answer.
        if pumping { return insertNext(next) }
        pump(starting: next)
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
            guard admitBatch() else { return }
        }
        frames.write(
            WebSocketFrameBytes.frame(opcode: WebSocketFrameBytes.text, frame, allocator: context.channel.allocator)
        )
    }

    /// Whether the first frame of a batch (consecutive frames of one event) may be written: a
    /// channel that is not writable (more than `maxQueuedBytes` waiting) is a slow consumer and
    /// gets closed instead.
    private func admitBatch() -> Bool {
        guard !closeSent, !slowConsumer else { return false }
        if writable { return true }
        slowConsumer = true
        logger.notice(
            "realtime slow consumer",
            metadata: ["hearth.max_queued_bytes": "\(configuration.maxQueuedBytes)"]
        )
        insertNext(
            session.close(
                code: .policyViolation,
                reason: "Slow consumer: more than \(configuration.maxQueuedBytes) bytes waited to be sent."
            )
        )
        return false
    }

    /// Sends a close frame; the TCP connection ends when the client answers it, or after
    /// `closeTimeout` (a client that stopped reading never gets it flushed).
    private func closeWebSocket(code: CloseCode, reason: String) {
        guard !closeSent, let context else { return }
        closeSent = true
        frames.write(
            WebSocketFrameBytes.close(code: code.rawValue, reason: reason, allocator: context.channel.allocator)
        )
        let timeout = TimeAmount.nanoseconds(RealtimeTicker.nanoseconds(configuration.closeTimeout))
        closeTimer = eventLoop.scheduleTask(in: timeout) { [self] in
            if let context = self.context {
                logger.debug("realtime close not answered; dropping the connection")
                context.close(promise: nil)
            }
        }
    }

    /// Flushes what the last event or batch wrote, unless more is about to follow (a batch of
    /// deliveries or the pump is under way).
    private func flushIfNeeded() {
        guard !holdFlush, !pumping else { return }
        frames.flush()
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
