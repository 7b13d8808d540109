import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Where a relayed WebSocket goes: the owner's base URL, the client's request target (path
/// and query) and `Host` (so the owner's hello names the node the client connected to), and
/// this node's `Hearth-Forwarded` stamp.
struct ClusterRelayTarget: Sendable {
    let ownerURL: String
    let target: String
    let host: String?
    let stamp: String
    let maxFrameBytes: Int
    /// Told when the owner could not be reached (the node looks it up again next time).
    let ownerUnreachable: @Sendable () -> Void
}

/// A client's WebSocket for a namespace another node owns, relayed to that node frame by
/// frame (`ClusterRouting` forwards REST and SSE; this is the realtime protocol's way). The
/// connection to the owner is made on the client connection's event loop, so both channels'
/// handlers run on one thread. Data frames pass unchanged both ways (re-masked towards the
/// owner, as a client must), pings and pongs too, so each end's liveness checks see the other
/// end; a close is passed on and its echo passed back; an end on either side ends both. Neither
/// side is read faster than the other takes it (reads pause while the other channel is not
/// writable). Frames the client sends before the owner's connection is up wait, at most
/// `pendingLimit` bytes (the Firebase clients send nothing before the hello).
final class ClusterWebSocketRelay: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    static let pendingLimit = 1 << 20

    let target: ClusterRelayTarget
    private var upstream: (any Channel)?
    private var pending: [WebSocketFrame] = []
    private var pendingBytes = 0
    private var ended = false

    init(target: ClusterRelayTarget) {
        self.target = target
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let client = NIOLoopBound((context: context, relay: self), eventLoop: context.eventLoop)
        Self.connect(target, on: context.eventLoop, client: context.channel).whenComplete { result in
            let (context, relay) = client.value
            switch result {
            case .success(let channel):
                guard !relay.ended else {
                    channel.close(promise: nil)
                    return
                }
                relay.upstream = channel
                for frame in relay.pending { channel.write(frame, promise: nil) }
                channel.flush()
                relay.pending = []
                relay.pendingBytes = 0
            case .failure:
                relay.target.ownerUnreachable()
                relay.end(context)
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .connectionClose:
            guard let upstream else {
                // Nothing to pass it to: echo it and end.
                let echo = WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)
                context.writeAndFlush(wrapOutboundOut(echo)).whenComplete { _ in context.close(promise: nil) }
                ended = true
                return
            }
            // The owner's echo comes back through `OwnerFrames`, which then ends both.
            upstream.writeAndFlush(Self.masked(frame), promise: nil)
        default:
            let masked = Self.masked(frame)
            if let upstream {
                upstream.writeAndFlush(masked, promise: nil)
            } else {
                pendingBytes += frame.length
                guard pendingBytes <= Self.pendingLimit else { return end(context) }
                pending.append(masked)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended = true
        upstream?.close(promise: nil)
        context.fireChannelInactive()
    }

    /// The client ended TCP (FIN) without a close frame (a process that died): the server's
    /// channels allow half-closure, so without this both connections would stay open, and the
    /// owner would run the client's onDisconnect writes only when a write failed.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            end(context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The client reads slower than the owner sends: stop reading the owner until it catches up.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        upstream?.setOption(ChannelOptions.autoRead, value: context.channel.isWritable).whenFailure { _ in }
        context.fireChannelWritabilityChanged()
    }

    /// Framing the client broke (a frame too large, a bad length): the client hears why, as the
    /// owner's own clients do (1009, 1002), and both connections end.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !ended, let error = error as? NIOWebSocketError else { return end(context) }
        ended = true
        upstream?.close(promise: nil)
        var data = context.channel.allocator.buffer(capacity: 2)
        data.writeInteger(error == .invalidFrameLength ? UInt16(1009) : UInt16(1002))
        let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in context.close(promise: nil) }
    }

    private func end(_ context: ChannelHandlerContext) {
        guard !ended else { return }
        ended = true
        upstream?.close(promise: nil)
        context.close(promise: nil)
    }

    /// `frame`'s payload with a fresh masking key, as a client's frames must have (NIO's
    /// encoder masks the payload with it); its reserved bits as they came, so that the owner
    /// fails a connection that sets them as it fails its own clients' (1002).
    static func masked(_ frame: WebSocketFrame) -> WebSocketFrame {
        WebSocketFrame(
            fin: frame.fin,
            rsv1: frame.rsv1,
            rsv2: frame.rsv2,
            rsv3: frame.rsv3,
            opcode: frame.opcode,
            maskKey: .random(),
            data: frame.unmaskedData
        )
    }

    /// Opens the WebSocket to the owner; its frames are written to `client`.
    private static func connect(
        _ target: ClusterRelayTarget,
        on eventLoop: any EventLoop,
        client: any Channel
    ) -> EventLoopFuture<any Channel> {
        guard let owner = OwnerAddress(url: target.ownerURL) else {
            return eventLoop.makeFailedFuture(ChannelError.connectPending)
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: target.host ?? owner.authority)
        headers.add(name: ClusterForwarder.header.rawName, value: target.stamp)
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.target, headers: headers)
        let client = NIOLoopBound(client, eventLoop: eventLoop)
        let upgraded = eventLoop.makePromise(of: Bool.self)
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(3))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(
                        maxFrameSize: target.maxFrameBytes,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(OwnerFrames(client: client.value))
                                return true
                            }
                        }
                    )
                    var configuration = NIOUpgradableHTTPClientPipelineConfiguration(
                        upgradeConfiguration: NIOTypedHTTPClientUpgradeConfiguration(
                            upgradeRequestHead: head,
                            upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in
                                channel.eventLoop.makeSucceededFuture(false)
                            }
                        )
                    )
                    // The owner's hello may arrive in the same read as its 101: keep those bytes.
                    configuration.leftOverBytesStrategy = .forwardBytes
                    let result = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: configuration
                    )
                    result.cascade(to: upgraded)
                }
            }
            .connect(host: owner.host, port: owner.port)
            .flatMapError { error in
                upgraded.fail(error)
                return eventLoop.makeFailedFuture(error)
            }
            .flatMap { channel in
                upgraded.futureResult.flatMapThrowing { upgraded -> any Channel in
                    guard upgraded else {
                        channel.close(promise: nil)
                        throw NIOWebSocketUpgradeError.unsupportedWebSocketTarget
                    }
                    return channel
                }
            }
    }
}

/// The owner's side of a relay: its frames go to the client as they are.
private final class OwnerFrames: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let client: any Channel

    init(client: any Channel) {
        self.client = client
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .connectionClose:
            client.writeAndFlush(frame).whenComplete { _ in self.client.close(promise: nil) }
            context.close(promise: nil)
        default:
            client.writeAndFlush(frame, promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        client.close(promise: nil)
        context.fireChannelInactive()
    }

    /// The owner reads slower than the client sends: stop reading the client until it catches up.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        client.setOption(ChannelOptions.autoRead, value: context.channel.isWritable).whenFailure { _ in }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
