import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One keep-alive HTTP/1.1 connection from this node to a namespace's owner, on one event
/// loop, carrying one relayed request at a time (`ClusterRESTRelay`) and kept between them by
/// its loop's `OwnerLinks`.
final class OwnerLink: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    let url: String
    private(set) var channel: (any Channel)?
    /// The relay it answers; nil while it waits in its pool.
    var answering: ClusterRESTRelay?
    /// Ends it after `OwnerLinks.idleLimit` in the pool.
    var expiry: Scheduled<Void>?
    private let pool: OwnerLinks

    init(url: String, pool: OwnerLinks) {
        self.url = url
        self.pool = pool
    }

    func handlerAdded(context: ChannelHandlerContext) {
        channel = context.channel
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let answering else {
            // An owner says nothing to a connection nobody asks on: end it.
            context.close(promise: nil)
            return
        }
        answering.ownerSent(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        answering?.ownerReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        answering?.ownerWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        expiry?.cancel()
        expiry = nil
        if let relay = answering {
            answering = nil
            relay.ownerEnded()
        } else {
            pool.remove(self)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    var isWritable: Bool { channel?.isWritable ?? false }
}

/// One event loop's `OwnerLink`s, by owner URL: a relayed request takes one that waits, or
/// connects a new one, and gives it back when its answer ends with the owner keeping the
/// connection. At most `maxIdlePerOwner` wait per owner; each waits `idleLimit` at most
/// (well under a node's idle timeout, 75 s by default, so the owner does not close one as it
/// is taken). Only its loop touches it.
final class OwnerLinks {
    static let maxIdlePerOwner = 64
    static let idleLimit: TimeAmount = .seconds(20)
    static let connectTimeout: TimeAmount = .seconds(3)

    let eventLoop: any EventLoop
    private let forwarder: ClusterForwarder
    private var idle: [String: [OwnerLink]] = [:]
    private var addresses: [String: OwnerAddress] = [:]
    private var stamp: (second: Int64, value: String) = (0, "")

    init(eventLoop: any EventLoop, forwarder: ClusterForwarder) {
        self.eventLoop = eventLoop
        self.forwarder = forwarder
    }

    /// A link to `url` that waits in the pool, or nil.
    func take(_ url: String) -> OwnerLink? {
        guard let link = idle[url]?.popLast() else { return nil }
        link.expiry?.cancel()
        link.expiry = nil
        return link
    }

    /// Where the node at `url` listens (parsed once per owner); nil when `url` is not
    /// `http://HOST[:PORT]`.
    func address(of url: String) -> OwnerAddress? {
        if let known = addresses[url] { return known }
        let parsed = OwnerAddress(url: url)
        if parsed != nil { addresses[url] = parsed }
        return parsed
    }

    /// A new link to the node at `url`, listening at `address`.
    func connect(_ url: String, at address: OwnerAddress) -> EventLoopFuture<OwnerLink> {
        let link = OwnerLink(url: url, pool: self)
        let bound = NIOLoopBound(link, eventLoop: eventLoop)
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(Self.connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(bound.value)
                }
            }
            .connect(host: address.host, port: address.port)
            .map { _ in bound.value }
    }

    /// `link`, its answer ended and the connection kept, waits for the next request.
    func giveBack(_ link: OwnerLink) {
        guard let channel = link.channel, channel.isActive else { return }
        var waiting = idle[link.url, default: []]
        guard waiting.count < Self.maxIdlePerOwner else {
            channel.close(promise: nil)
            return
        }
        link.expiry = eventLoop.scheduleTask(in: Self.idleLimit) { [weak link] in
            link?.channel?.close(promise: nil)
        }
        waiting.append(link)
        idle[link.url] = waiting
    }

    /// `link` closed while it waited.
    func remove(_ link: OwnerLink) {
        idle[link.url]?.removeAll { $0 === link }
    }

    /// This node's `Hearth-Forwarded` stamp, made again each second (the HMAC is the dearest
    /// part of a small relayed request).
    func currentStamp() -> String {
        let second = Int64(Date().timeIntervalSince1970)
        if second != stamp.second { stamp = (second, forwarder.stamp()) }
        return stamp.value
    }
}

/// Why a relayed request could not reach its owner.
struct ClusterRelayError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
