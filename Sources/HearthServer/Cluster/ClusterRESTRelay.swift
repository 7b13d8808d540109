import CoreMetrics
import NIOCore
import NIOHTTP1
import Synchronization

/// A connection's REST requests (and callables' calls) for namespaces other nodes own, relayed
/// to the owner at the channel level, as `ClusterWebSocketRelay` relays a WebSocket: the request's parts go to a
/// keep-alive connection to the owner (`OwnerLink`, on this connection's event loop) and the
/// answer's parts come back, with no task, no Hummingbird request and no HTTP client between.
/// The router still forwards (`ClusterForwarder`) what needs a wait to decide (an owner not
/// known here yet, rules kept only in PostgreSQL), SSE, and anything but plain keep-alive
/// HTTP/1.1 (`ClusterRouting.relayTarget`).
///
/// It sits between NIO's HTTP codec and the router's, and keeps HTTP's order: a request is
/// relayed only when the router owes no answer on the connection, and requests read while a
/// relayed one is answered wait (and the connection reads no more) until its answer ends. The
/// request counts against its client address's rate as the router counts it; what the owner
/// answers passes unchanged but for the connection's own headers. The owner's answer must
/// start within `ClusterRESTRelays.answerLimit` or the connection ends. An owner that cannot be
/// reached gets the client a 503 with `Retry-After` (the node asks PostgreSQL again next time);
/// an owner that answers before the whole body was sent (a refusal) gets the client
/// `Connection: close`, as the owner's own clients get.
final class ClusterRESTRelay: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A relayed request and its answer.
    private final class Exchange {
        let namespace: String
        let url: String
        let counted: MetricsRoute
        let started = NIODeadline.now()
        var link: OwnerLink?
        /// Parts read before the link was up.
        var waiting: [HTTPClientRequestPart] = []
        var requestEnded = false
        var answered = false
        var status = 0
        var ownerKeepsAlive = true
        var closeAfter = false
        var limit: Scheduled<Void>?

        init(namespace: String, url: String, counted: MetricsRoute) {
            self.namespace = namespace
            self.url = url
            self.counted = counted
        }
    }

    private let routing: ClusterRESTRelays.Routing
    private let links: OwnerLinks
    private var context: ChannelHandlerContext?
    /// Requests given to the router whose answers have not ended.
    private var routerOwes = 0
    private var exchange: Exchange?
    /// Requests read while a relayed one is answered.
    private var held: [HTTPServerRequestPart] = []
    private var readWanted = false
    private var quiesce: Any?
    /// An answer ended the connection: nothing more is read.
    private var closing = false

    init(routing: ClusterRESTRelays.Routing, links: OwnerLinks) {
        self.routing = routing
        self.links = links
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    // MARK: The client's side

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        read(unwrapInboundIn(data), context: context)
    }

    private func read(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        if closing { return }
        if let exchange {
            guard exchange.requestEnded || !held.isEmpty else { return sendToOwner(part, exchange) }
            held.append(part)
            return
        }
        switch part {
        case .head(let head):
            if routerOwes == 0, let target = routing.cluster.relayTarget(head),
                routing.limiter?.admit(context.channel.remoteAddress?.ipAddress) ?? true
            {
                start(head, target: target, context: context)
            } else {
                // The router's: this node's own requests, what the relay declines, and one over
                // the client's rate (the router finds the bucket empty and answers 429).
                routerOwes += 1
                context.fireChannelRead(wrapInboundOut(part))
            }
        case .body, .end:
            context.fireChannelRead(wrapInboundOut(part))
        }
    }

    func read(context: ChannelHandlerContext) {
        guard !readsHeld else {
            readWanted = true
            return
        }
        context.read()
    }

    /// Whether the connection reads no more for now: a next request waits for the relayed
    /// one's answer, or the owner's connection is not up or takes no more of the body yet.
    private var readsHeld: Bool {
        if !held.isEmpty { return true }
        guard let exchange, !exchange.requestEnded else { return false }
        return !(exchange.link?.isWritable ?? false)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { routerOwes = max(0, routerOwes - 1) }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // The client reads slower than the owner answers: stop reading the owner meanwhile.
        exchange?.link?.channel?.setOption(ChannelOptions.autoRead, value: context.channel.isWritable)
            .whenFailure { _ in }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let exchange {
            self.exchange = nil
            exchange.limit?.cancel()
            exchange.link?.answering = nil
            exchange.link?.channel?.close(promise: nil)
        }
        held = []
        context.fireChannelInactive()
    }

    /// A server shutting down closes connections between requests: not in a relayed one's.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if exchange != nil, let event = event as? ChannelShouldQuiesceEvent {
            quiesce = event
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: The owner's side

    private func start(
        _ head: HTTPRequestHead,
        target: RelayTarget,
        context: ChannelHandlerContext
    ) {
        let exchange = Exchange(namespace: target.namespace, url: target.ownerURL, counted: target.metricsRoute)
        self.exchange = exchange
        exchange.limit = context.eventLoop.assumeIsolated().scheduleTask(in: ClusterRESTRelays.answerLimit) {
            [weak self] in
            guard let self, self.exchange === exchange, !exchange.answered else { return }
            self.endAll()
        }
        guard let address = links.address(of: target.ownerURL) else {
            return ownerUnreachable(
                exchange,
                ClusterRelayError("the owner's URL '\(target.ownerURL)' is not http://HOST:PORT")
            )
        }
        let forwarded = ownerHead(head, authority: address.authority)
        if let link = links.take(target.ownerURL) {
            attach(link, to: exchange)
            link.channel?.write(HTTPClientRequestPart.head(forwarded), promise: nil)
            return
        }
        exchange.waiting.append(.head(forwarded))
        links.connect(target.ownerURL, at: address).assumeIsolated().whenComplete { [self] result in
            let relay = self
            guard relay.exchange === exchange else {
                if case .success(let link) = result { link.channel?.close(promise: nil) }
                return
            }
            switch result {
            case .success(let link):
                relay.attach(link, to: exchange)
                for part in exchange.waiting { link.channel?.write(part, promise: nil) }
                exchange.waiting = []
                link.channel?.flush()
                relay.resumeReading()
            case .failure(let error):
                relay.ownerUnreachable(exchange, error)
            }
        }
    }

    private func attach(_ link: OwnerLink, to exchange: Exchange) {
        exchange.link = link
        link.answering = self
        link.channel?.setOption(ChannelOptions.autoRead, value: context?.channel.isWritable ?? true).whenFailure { _ in
        }
    }

    private func sendToOwner(_ part: HTTPServerRequestPart, _ exchange: Exchange) {
        let outgoing: HTTPClientRequestPart
        switch part {
        case .head:
            return  // not reached: a head while a request is read starts a new one
        case .body(let buffer):
            outgoing = .body(.byteBuffer(buffer))
        case .end(let trailers):
            exchange.requestEnded = true
            outgoing = .end(trailers)
        }
        guard let channel = exchange.link?.channel else {
            exchange.waiting.append(outgoing)
            return
        }
        channel.writeAndFlush(outgoing, promise: nil)
    }

    /// The client's head as the owner gets it: the connection's own fields dropped, `Host` the
    /// owner's, and this node's stamp.
    private func ownerHead(_ head: HTTPRequestHead, authority: String) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        headers.reserveCapacity(head.headers.count + 2)
        for (name, value) in head.headers where !Self.connectionFields.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        headers.add(name: "Host", value: authority)
        headers.add(name: ClusterForwarder.header.rawName, value: links.currentStamp())
        return HTTPRequestHead(version: .http1_1, method: head.method, uri: head.uri, headers: headers)
    }

    /// The forward's hop-by-hop fields but the body's framing, which passes through as sent.
    private static let connectionFields = ClusterForwarder.hopByHop.subtracting(["content-length", "transfer-encoding"])

    func ownerSent(_ part: HTTPClientResponsePart) {
        guard let context, let exchange else { return }
        switch part {
        case .head(var head):
            guard head.status.code >= 200 else { return }  // no `Expect` is relayed
            exchange.answered = true
            exchange.status = Int(head.status.code)
            exchange.ownerKeepsAlive = head.isKeepAlive
            for name in ["connection", "keep-alive", "proxy-connection"] { head.headers.remove(name: name) }
            if !exchange.requestEnded {
                // The owner answered before it had the whole body: the rest is not read.
                exchange.closeAfter = true
                head.headers.add(name: "Connection", value: "close")
            }
            head.version = .http1_1
            context.write(wrapOutboundOut(.head(head)), promise: nil)
        case .body(let buffer):
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        case .end(let trailers):
            context.writeAndFlush(wrapOutboundOut(.end(trailers)), promise: nil)
            finish(exchange, linkKept: exchange.ownerKeepsAlive && exchange.requestEnded)
        }
    }

    func ownerReadComplete() {
        context?.flush()
    }

    func ownerWritabilityChanged() {
        resumeReading()
    }

    /// The owner's connection closed during the exchange.
    func ownerEnded() {
        guard let exchange else { return }
        if exchange.answered {
            endAll()  // the answer is cut: so is the client's
        } else {
            ownerUnreachable(exchange, ClusterRelayError("the owner closed the connection"))
        }
    }

    private func ownerUnreachable(_ exchange: Exchange, _ error: any Error) {
        guard let context else { return }
        routing.forgetOwner(exchange.namespace)
        exchange.link?.answering = nil
        exchange.link?.channel?.close(promise: nil)
        exchange.link = nil
        exchange.answered = true
        exchange.status = 503
        exchange.closeAfter = !exchange.requestEnded
        var body = context.channel.allocator.buffer(capacity: 160)
        let message = "Namespace '\(exchange.namespace)' cannot be served now (\(error)); retry."
        body.writeString(#"{"error":"# + JSONText.quoted(message) + "}")
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Retry-After", value: "1")
        if exchange.closeAfter { headers.add(name: "Connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .serviceUnavailable, headers: headers))),
            promise: nil
        )
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        finish(exchange, linkKept: false)
    }

    private func finish(_ exchange: Exchange, linkKept: Bool) {
        guard let context, self.exchange === exchange else { return }
        self.exchange = nil
        exchange.limit?.cancel()
        routing.relayed.increment()
        routing.metrics.request(
            route: exchange.counted.rawValue,
            status: exchange.status,
            duration: .nanoseconds(Int64((NIODeadline.now() - exchange.started).nanoseconds))
        )
        if let link = exchange.link {
            link.answering = nil
            if linkKept {
                link.channel?.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
                links.giveBack(link)
            } else {
                link.channel?.close(promise: nil)
            }
        }
        if exchange.closeAfter {
            // The answer says `Connection: close`: `HTTPConnectionGuard` closes the connection
            // once it is written, reading and dropping what the client still sends meanwhile.
            held = []
            closing = true
            return
        }
        let waiting = held
        held = []
        for part in waiting { read(part, context: context) }
        if !waiting.isEmpty { context.fireChannelReadComplete() }
        if self.exchange == nil, let quiesce {
            self.quiesce = nil
            context.fireUserInboundEventTriggered(quiesce)
        }
        resumeReading()
    }

    private func resumeReading() {
        guard readWanted, !readsHeld, let context else { return }
        readWanted = false
        context.read()
    }

    /// The exchange cannot end well: both connections end.
    private func endAll() {
        guard let context else { return }
        context.close(promise: nil)
    }
}

/// The REST relays of a cluster node's connections (`ClusterRESTRelay`): what they decide with,
/// given when the cluster is (`attach`), and each event loop's links to the owners.
final class ClusterRESTRelays: Sendable {
    /// How long an owner may take to start its answer.
    static let answerLimit: TimeAmount = .minutes(10)

    struct Routing: Sendable {
        let cluster: ClusterRouting
        let limiter: RequestRateLimiter?
        let metrics: ServerMetrics
        /// `hearth_cluster_relayed_requests_total`: requests this node relayed this way.
        let relayed: CoreMetrics.Counter

        init(cluster: ClusterRouting, limiter: RequestRateLimiter?, metrics: ServerMetrics) {
            self.cluster = cluster
            self.limiter = limiter
            self.metrics = metrics
            relayed = metrics.counter("hearth_cluster_relayed_requests_total", [])
        }

        func forgetOwner(_ namespace: String) { cluster.membership.forgetOwner(namespace) }
    }

    private let routing = Mutex<Routing?>(nil)
    private let loops = Mutex<[ObjectIdentifier: LoopConfined<OwnerLinks>]>([:])

    init() {}

    func attach(_ routing: Routing) {
        self.routing.withLock { $0 = routing }
    }

    /// The relay for a new connection on `eventLoop`; nil outside a cluster.
    func relay(on eventLoop: any EventLoop) -> ClusterRESTRelay? {
        guard let routing = routing.withLock({ $0 }) else { return nil }
        let links = loops.withLock { loops -> OwnerLinks in
            let key = ObjectIdentifier(eventLoop)
            if let links = loops[key] { return links.value(on: eventLoop) }
            let links = OwnerLinks(eventLoop: eventLoop, forwarder: routing.cluster.forwarder)
            loops[key] = LoopConfined(links, eventLoop: eventLoop)
            return links
        }
        return ClusterRESTRelay(routing: routing, links: links)
    }
}
