import Logging
import NIOCore
import NIOHTTP1

/// Sits right after NIO's HTTP/1 parser and keeps a connection from being held open by a
/// client that sends nothing useful (see `HTTPConnectionState` for the rules): it answers
/// requests the parser refuses, closes connections whose deadlines pass, and closes a
/// connection whose response was sent before its request body was read. `RequestLineGuard`,
/// before the parser, reports raw bytes to it. Removed when the connection upgrades to a
/// WebSocket.
///
/// Time is its event loop's (`EventLoop.now`, the same clock its timers run on): on NIO's
/// loops that is `NIODeadline.now()`, and a test on an `EmbeddedEventLoop` moves it.
final class HTTPConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var state: HTTPConnectionState
    private let logger: Logger
    private var context: ChannelHandlerContext?
    /// The deadline the scheduled timer fires at.
    private var timer: (at: NIODeadline, task: Scheduled<Void>)?
    private var lingerTimer: Scheduled<Void>?

    /// `now`: when the connection opened, on its event loop's clock.
    init(limits: HTTPConnectionState.Limits, logger: Logger, now: NIODeadline) {
        self.state = HTTPConnectionState(limits: limits, now: now)
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        armTimer()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.task.cancel()
        timer = nil
        lingerTimer?.cancel()
        lingerTimer = nil
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.task.cancel()
        timer = nil
        lingerTimer?.cancel()
        lingerTimer = nil
        context.fireChannelInactive()
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let action: HTTPConnectionState.Action
        switch unwrapInboundIn(data) {
        case .head(let head): action = state.headReceived(keepAlive: head.isKeepAlive, now: context.eventLoop.now)
        case .body(let bytes): action = state.bodyReceived(byteCount: bytes.readableBytes, now: context.eventLoop.now)
        case .end: action = state.requestEnded(now: context.eventLoop.now)
        }
        perform(action, context: context)
        if action == .forward { context.fireChannelRead(data) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let action: HTTPConnectionState.Action
        switch error {
        case let error as HTTPParserError:
            action = state.parseFailed(error)
        case ByteToMessageDecoderError.dataReceivedInErrorState:
            // More bytes after a parse error: the first error decided.
            action = .drop
        case is ByteToMessageDecoderError:
            action = state.parseFailed(nil)
        default:
            context.fireErrorCaught(error)
            return
        }
        logger.debug("HTTP request refused by the parser", metadata: ["hearth.error": "\(error)"])
        perform(action, context: context)
        if action == .forward { context.fireErrorCaught(error) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if state.closing, let event = event as? ChannelEvent, event == .inputClosed {
            // The client closed while the connection lingered.
            context.close(promise: nil)
            return
        }
        if event is ChannelShouldQuiesceEvent {
            // Graceful shutdown; also before Hummingbird's handlers exist (no request yet).
            perform(state.quiesce(), context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Raw bytes are about to reach the parser (from `RequestLineGuard`); false: drop them.
    func shouldParse(_ bytes: ByteBuffer) -> Bool {
        guard let context else { return true }
        if state.closing { return false }
        guard state.measuresRequestLine else { return true }
        let lineEnd = bytes.readableBytesView.firstIndex(of: UInt8(ascii: "\n")).map { $0 - bytes.readerIndex }
        let action = state.received(byteCount: bytes.readableBytes, lineEnd: lineEnd, now: context.eventLoop.now)
        perform(action, context: context)
        return action == .forward
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            let closes = head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
            if state.responseHeadWritten(status: head.status, closes: closes) == .markClose {
                head.headers.replaceOrAdd(name: "Connection", value: "close")
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard case .closeAfterWrite(let linger) = state.responseEnded(now: context.eventLoop.now) else {
                context.write(data, promise: promise)
                armTimer()
                return
            }
            let written = context.eventLoop.makePromise(of: Void.self)
            if let promise { written.futureResult.cascade(to: promise) }
            context.write(data, promise: written)
            context.flush()
            close(after: written.futureResult, linger: linger, context: context)
        }
    }

    // MARK: Actions

    private func perform(_ action: HTTPConnectionState.Action, context: ChannelHandlerContext) {
        switch action {
        case .none, .forward, .drop, .markClose:
            armTimer()
        case .refuse(let refusal):
            logger.debug(
                "HTTP connection refused",
                metadata: ["hearth.status": "\(refusal.status.code)", "hearth.reason": "\(refusal.message)"]
            )
            let written = context.eventLoop.makePromise(of: Void.self)
            context.write(wrapOutboundOut(.head(refusal.head())), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: refusal.body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
            close(after: written.futureResult, linger: true, context: context)
        case .closeAfterWrite(let linger):
            // Only returned for a response's end (`write`).
            close(after: context.eventLoop.makeSucceededFuture(()), linger: linger, context: context)
        case .close(let abortingBody):
            logger.debug("HTTP connection closed: idle, too slow or shutting down")
            if abortingBody { context.fireErrorCaught(HTTPParserError.invalidEOFState) }
            context.close(promise: nil)
        }
    }

    /// Closes the connection once `written` completes; lingering closes only its output and
    /// drops what still arrives until the client closes or `lingerTimeout` passes.
    private func close(after written: EventLoopFuture<Void>, linger: Bool, context: ChannelHandlerContext) {
        timer?.task.cancel()
        timer = nil
        written.assumeIsolated().whenComplete { _ in
            guard linger, context.channel.isActive else {
                context.close(promise: nil)
                return
            }
            let outputClosed = context.eventLoop.makePromise(of: Void.self)
            context.close(mode: .output, promise: outputClosed)
            outputClosed.futureResult.assumeIsolated().whenFailure { _ in context.close(promise: nil) }
            self.lingerTimer = context.eventLoop.assumeIsolated().scheduleTask(in: self.state.limits.lingerTimeout) {
                context.close(promise: nil)
            }
        }
    }

    /// Keeps one timer at the state's deadline (a later deadline re-arms it when it fires).
    private func armTimer() {
        guard let deadline = state.deadline, let context else { return }
        if let timer, timer.at <= deadline { return }
        timer?.task.cancel()
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.timer = nil
            self.deadlineReached()
        }
        timer = (deadline, task)
    }

    private func deadlineReached() {
        guard let context else { return }
        perform(state.deadlinePassed(now: context.eventLoop.now), context: context)
    }
}

@available(*, unavailable)
extension HTTPConnectionGuard: Sendable {}
