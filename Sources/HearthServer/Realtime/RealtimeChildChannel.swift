import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// The server's child channel: HTTP/1.1 for Hummingbird (REST, SSE) with the realtime
/// WebSocket upgrade, built like hummingbird-websocket's `HTTP1WebSocketUpgradeChannel` but
/// lean: an accepted upgrade installs a `RealtimeChannelHandler` after NIO's frame codec and
/// `handle(value:)` returns at once, so a WebSocket holds no task, no `NIOAsyncChannel` and no
/// stream. Plain requests go to Hummingbird (`handleHTTP`); a refused upgrade gets 400 with
/// `Connection: close`. `.tls(...)` wraps it like any `HTTPChannelHandler`.
///
/// Before any of that, a connection over `ConnectionCap` is refused, and `RequestLineGuard` and
/// `HTTPConnectionGuard` surround NIO's parser until the connection upgrades: a malformed
/// first request is answered and closed (NIO's upgrade handler would otherwise wait for it
/// forever), and slow or idle connections are closed.
struct RealtimeChildChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        /// The WebSocket runs in its channel handler.
        case websocket
        /// Over the connection cap: answered and closed.
        case refused
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case failedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let endpoint: RealtimeEndpoint
    /// In a cluster: REST requests for namespaces other nodes own, relayed at the channel level.
    let relays: ClusterRESTRelays
    /// Plain REST writes answered on the connection's loop (`DirectRESTWrites`), after the relay
    /// in a cluster.
    let directWrites: DirectRESTWrites
    /// Largest WebSocket frame accepted from a client.
    let maxFrameBytes: Int
    let http1: HTTP1Channel.Configuration
    let connections: ConnectionConfiguration
    let cap: ConnectionCap
    /// Whether a connection over the cap is answered 503 (plain HTTP) or just closed (TLS).
    let answersRefusals: Bool
    /// How long sent data may stay unacknowledged before the kernel ends the connection
    /// (`TCP_USER_TIMEOUT`): a peer that vanished without a FIN, found even where it sends
    /// nothing (an SSE stream, whose keep-alives then go unanswered); nil: the kernel's default
    /// (retransmissions for ~15 minutes).
    let unacknowledgedTimeout: Duration?

    init(
        responder: @escaping HTTPChannelHandler.Responder,
        endpoint: RealtimeEndpoint,
        relays: ClusterRESTRelays,
        directWrites: DirectRESTWrites,
        maxFrameBytes: Int,
        connections: ConnectionConfiguration,
        cap: ConnectionCap,
        answersRefusals: Bool,
        unacknowledgedTimeout: Duration?
    ) {
        self.responder = Self.upgradeAwareResponder(responder)
        self.endpoint = endpoint
        self.relays = relays
        self.directWrites = directWrites
        self.maxFrameBytes = min(maxFrameBytes, Int(UInt32.max))
        self.connections = connections
        self.cap = cap
        self.answersRefusals = answersRefusals
        self.unacknowledgedTimeout = unacknowledgedTimeout
        var http1 = HTTP1Channel.Configuration()
        http1.httpDecoder.maxHeaderFieldSize = connections.maxHeaderBytes
        http1.httpDecoder.maxHeaderListSize = connections.maxHeaderBytes
        self.http1 = http1
    }

    /// How a connection's reads size their buffer: from 512 bytes (an upgrade request, a
    /// realtime frame), growing as reads fill it (a large body) up to 64 KiB. A channel keeps
    /// its read buffer between reads, so NIO's default first size (2,048) was 2 KB of every
    /// idle listener's memory (`hearthload w3`).
    static let reads = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        if let refusal = cap.admit(channel) {
            ConnectionCap.refuse(channel, answer: answersRefusals, because: refusal)
            let refused = channel.eventLoop.makeSucceededFuture(UpgradeResult.refused)
            return channel.eventLoop.makeSucceededFuture(Value(upgradeResult: refused, channel: channel))
        }
        return channel.eventLoop.makeCompletedFuture {
            try? channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.reads)
            #if os(Linux)
            if let unacknowledgedTimeout {
                try? channel.syncOptions?.setOption(Self.tcpUserTimeout, value: Int(unacknowledgedTimeout.milliseconds))
            }
            #endif
            let eventLoop = channel.eventLoop
            let connectionGuard = HTTPConnectionGuard(limits: connections.limits, logger: logger, now: eventLoop.now)
            let lineGuard = RequestLineGuard(reportingTo: connectionGuard)
            let upgradeAttempted = NIOLoopBoundBox(false, eventLoop: eventLoop)
            let accepted = NIOLoopBoundBox<RealtimeAcceptance?>(nil, eventLoop: eventLoop)
            let guards = NIOLoopBound((line: lineGuard, connection: connectionGuard), eventLoop: eventLoop)
            let (endpoint, cap) = (self.endpoint, self.cap)
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: maxFrameBytes,
                enableAutomaticErrorHandling: false,  // RealtimeChannelHandler answers framing errors
                shouldUpgrade: { channel, head in
                    upgradeAttempted.value = true
                    let target = head.uri
                    let authority = head.headers.first(name: "host")
                    let forwarded = head.headers.first(name: ClusterForwarder.header.rawName)
                    let promise = channel.eventLoop.makePromise(of: RealtimeAcceptance?.self)
                    promise.completeWithTask {
                        await endpoint.upgrade(target: target, authority: authority, forwarded: forwarded)
                    }
                    return promise.futureResult.map { upgrade -> HTTPHeaders? in
                        guard let upgrade else { return nil }
                        accepted.value = upgrade
                        // Before NIO removes the parser: the guards see HTTP only.
                        let pipeline = channel.pipeline.syncOperations
                        pipeline.removeHandler(guards.value.line, promise: nil)
                        pipeline.removeHandler(guards.value.connection, promise: nil)
                        return HTTPHeaders()
                    }
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        guard let upgrade = accepted.value else {
                            throw NIOWebSocketUpgradeError.unsupportedWebSocketTarget
                        }
                        accepted.value = nil
                        switch upgrade {
                        case .serve(let upgrade):
                            if upgrade.relayedByNode { cap.exempt(channel) }
                            try channel.pipeline.syncOperations.addHandler(
                                RealtimeChannelHandler(upgrade: upgrade, eventLoop: channel.eventLoop)
                            )
                        case .relay(let target):
                            try channel.pipeline.syncOperations.addHandler(ClusterWebSocketRelay(target: target))
                        }
                        return UpgradeResult.websocket
                    }
                }
            )
            let http1 = self.http1
            let (relays, directWrites) = (self.relays, self.directWrites)
            let serverUpgradeConfiguration = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // A cluster's relay first: what it leaves is this node's, for the direct path
                        // or the router.
                        if let relay = relays.relay(on: channel.eventLoop) {
                            try channel.pipeline.syncOperations.addHandler(relay)
                        }
                        if let direct = directWrites.handler() {
                            try channel.pipeline.syncOperations.addHandler(direct)
                        }
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandlers(http1.additionalChannelHandlers())
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: http1.idleTimeout.map { .init($0) }, logger: logger)
                        )
                        let asyncChannel = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true)
                        )
                        return upgradeAttempted.value
                            ? UpgradeResult.failedUpgrade(asyncChannel) : UpgradeResult.notUpgraded(asyncChannel)
                    }
                }
            )
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(
                upgradeConfiguration: serverUpgradeConfiguration
            )
            configuration.enablePipelining = false  // HTTP is pipelined by NIOAsyncChannel
            configuration.enableErrorHandling = false  // HTTPConnectionGuard answers them
            configuration.enableResponseHeaderValidation = false  // HTTPTypes validated them
            configuration.decoderConfiguration.maxHeaderFieldSize = http1.httpDecoder.maxHeaderFieldSize
            configuration.decoderConfiguration.maxHeaderListSize = http1.httpDecoder.maxHeaderListSize
            configuration.decoderConfiguration.maxHeaderFieldCount = http1.httpDecoder.maxHeaderFieldCount
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(lineGuard)
            let result = try pipeline.configureUpgradableHTTPServerPipeline(configuration: configuration)
            let parser = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(connectionGuard, position: .after(parser))
            return Value(upgradeResult: result, channel: channel)
        }
    }

    #if os(Linux)
    /// `TCP_USER_TIMEOUT` (Linux's `IPPROTO_TCP` option 18), in milliseconds.
    static let tcpUserTimeout = ChannelOptions.Types.SocketOption(
        level: NIOBSDSocket.OptionLevel(rawValue: 6),
        name: NIOBSDSocket.Option(rawValue: 18)
    )
    #endif

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .websocket, .refused:
                return
            case .notUpgraded(let http1):
                await handleHTTP(asyncChannel: http1, logger: logger)
            case .failedUpgrade(let http1):
                await Self.refuseUpgrade(http1, logger: logger)
            }
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("upgrade failed: input closed")
        } catch {
            logger.debug("upgrade failed", metadata: ["hearth.error": "\(error)"])
        }
    }

    /// 400, empty body, `Connection: close`.
    static func refuseUpgrade(_ channel: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, logger: Logger) async {
        do {
            try await channel.executeThenClose { _, outbound in
                let head = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
                try await outbound.write(contentsOf: [.head(head), .end(nil)])
            }
        } catch {
            logger.trace("refused upgrade: write failed", metadata: ["hearth.error": "\(error)"])
        }
    }

    /// A keep-alive connection that sends an upgrade after plain requests gets a redirect to the
    /// same target and the connection closed, so it retries on a fresh connection (NIO only
    /// upgrades a connection's first request), as Hummingbird does.
    static func upgradeAwareResponder(
        _ responder: @escaping HTTPChannelHandler.Responder
    ) -> HTTPChannelHandler.Responder {
        struct RedirectCloseError: Error {}
        return { request, responseWriter, channel in
            if request.headers[.upgrade]?.lowercased() == "websocket" {
                var target = request.uri.path
                if let query = request.uri.query { target += "?\(query)" }
                let response = HTTPResponse(
                    status: .temporaryRedirect,
                    headerFields: [.connection: "close", .location: target]
                )
                try await responseWriter.writeResponse(response)
                throw RedirectCloseError()
            }
            try await responder(request, responseWriter, channel)
        }
    }
}
