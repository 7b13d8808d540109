import CoreMetrics
import HTTPTypes
import HearthCore
import HearthDatabase
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Plain REST writes answered on their connection's event loop (docs/decisions/0032).
///
/// A `PUT`, `POST`, `PATCH` or `DELETE` of a data path with a small body, nothing but `ns`, `auth` and
/// `print` in its query, and no header that asks for more (ETags, conditions, a method
/// override, `Expect`, `Connection: close`) is read whole by `DirectRESTWriteHandler`, which sits
/// between NIO's HTTP parser and Hummingbird's. If `RESTService.directWrite` finds it
/// writable with nothing to wait for, the handler hands it to the namespace's writer and
/// writes the answer itself when the writer calls back (the write's, or its refusal's or
/// failure's as the router maps errors): no task, no async stream, no hop through Swift's
/// global pool. Everything else goes to the router as the bytes it came as, and is answered
/// there as it always is.
final class DirectRESTWrites: Sendable {
    /// What the handlers decide and answer with, given once the server is built (`attach`).
    struct Serving: Sendable {
        /// On a node of a cluster: which namespaces it writes itself, and the connection cap
        /// that another node's connections are exempt from.
        struct Cluster: Sendable {
            let routing: ClusterRouting
            let cap: ConnectionCap
        }

        let service: RESTService
        let cors: CORS
        let metrics: ServerMetrics
        let limiter: RequestRateLimiter?
        /// The `Server` header, as the router's answers carry it.
        let serverName: String
        /// `hearth_rest_direct_writes_total`: writes answered here.
        let answered: CoreMetrics.Counter
        let cluster: Cluster?

        init(
            service: RESTService,
            cors: CORS,
            metrics: ServerMetrics,
            limiter: RequestRateLimiter?,
            serverName: String,
            cluster: Cluster? = nil
        ) {
            self.cluster = cluster
            self.service = service
            self.cors = cors
            self.metrics = metrics
            self.limiter = limiter
            self.serverName = serverName
            answered = metrics.counter("hearth_rest_direct_writes_total", [])
        }
    }

    private let serving = Mutex<Serving?>(nil)

    init() {}

    func attach(_ serving: Serving) {
        self.serving.withLock { $0 = serving }
    }

    /// The handler for a new connection; nil until attached, or when direct writes are off.
    func handler() -> DirectRESTWriteHandler? {
        serving.withLock { $0 }.map(DirectRESTWriteHandler.init(serving:))
    }
}

/// One connection's direct REST writes (`DirectRESTWrites`). It keeps HTTP's order with the
/// router's answers on the connection: it takes a request only when the router owes no
/// answer, and while its write is in flight it reads nothing more (the parts already read wait
/// and follow it, in order). It takes none while the connection is not writable (a client that
/// does not read its answers), so the router's backpressure bounds such a client.
final class DirectRESTWriteHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Bodies up to this are read here; larger ones go to the router, which may refuse them
    /// before reading them (`RESTService.earlyRefusalMinimumBytes`).
    static let maxBodyBytes = RESTService.earlyRefusalMinimumBytes

    /// A request being read or written here.
    private final class Exchange {
        let head: HTTPRequestHead
        let started = ContinuousClock.now
        let announced: Int
        var body: [UInt8] = []
        /// The write, once handed to the writer.
        var write: RESTService.DirectWrite?
        /// Whether another node of the cluster relayed it (counted there).
        var relayedByNode = false

        init(head: HTTPRequestHead, announced: Int) {
            self.head = head
            self.announced = announced
            body.reserveCapacity(announced)
        }
    }

    private let serving: DirectRESTWrites.Serving
    private var context: ChannelHandlerContext?
    /// Requests given to the router whose answers have not ended.
    private var routerOwes = 0
    private var exchange: Exchange?
    /// Parts read while a write is in flight.
    private var held: [HTTPServerRequestPart] = []
    private var readWanted = false
    private var quiesce: Any?

    init(serving: DirectRESTWrites.Serving) {
        self.serving = serving
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        end()
        self.context = nil
    }

    // MARK: Requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        read(unwrapInboundIn(data), context: context)
    }

    private func read(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        if let exchange {
            if exchange.write != nil || !held.isEmpty { return held.append(part) }
            switch part {
            case .head:
                // Not sent by the parser before the request's end; the router's if it were.
                hand(exchange, ended: false, context: context)
                read(part, context: context)
            case .body(let buffer):
                guard exchange.body.count + buffer.readableBytes <= exchange.announced else {
                    return hand(exchange, ended: false, then: part, context: context)
                }
                exchange.body.append(contentsOf: buffer.readableBytesView)
            case .end(let trailers):
                guard trailers == nil else { return hand(exchange, ended: false, then: part, context: context) }
                start(exchange, context: context)
            }
            return
        }
        // Not while the client leaves answers unread (the channel unwritable): the router's
        // requests wait for their answers' writes, so it stops reading such a client.
        if case .head(let head) = part, routerOwes == 0, context.channel.isWritable,
            let announced = Self.takes(head, maxBodyBytes: min(Self.maxBodyBytes, serving.service.maxRequestBodyBytes)),
            serving.service.bodyMemory.reserve(announced)
        {
            let exchange = Exchange(head: head, announced: announced)
            if let cluster = serving.cluster, cluster.routing.forwarder.isForwarded(head) {
                // Another node's request, as the router tells it (a stamp that is not valid is a
                // client's): counted there, and at once, its connection is that node's.
                exchange.relayedByNode = true
                cluster.cap.exempt(context.channel)
            }
            self.exchange = exchange
            return
        }
        if case .head = part { routerOwes += 1 }
        context.fireChannelRead(wrapInboundOut(part))
    }

    /// The body's length when the request's head is one this handler reads: a plain write
    /// over HTTP/1.1 that keeps the connection, with a small body of announced length and
    /// nothing asked for but the write (see `DirectRESTWrites`).
    static func takes(_ head: HTTPRequestHead, maxBodyBytes: Int) -> Int? {
        guard head.version == .http1_1,
            head.method == .PUT || head.method == .POST || head.method == .PATCH || head.method == .DELETE
        else { return nil }
        var announced: Int?
        var authorized = false
        for (name, value) in head.headers {
            switch name.lowercased() {
            case "content-length":
                guard announced == nil, let length = Int(value), (0...maxBodyBytes).contains(length) else { return nil }
                announced = length
            case "authorization":
                // Two are one field to the router (joined with a comma): its answer, not the first's.
                guard !authorized else { return nil }
                authorized = true
            case "connection":
                if value.lowercased().contains("close") { return nil }
            case "transfer-encoding", "expect", "upgrade", "if-match", "if-none-match", "x-firebase-etag",
                "x-http-method-override":
                return nil
            default:
                continue
            }
        }
        // A `DELETE` needs no length (it has no body); the others announce theirs.
        guard let length = announced ?? (head.method == .DELETE ? 0 : nil),
            RESTService.isPlainDataPath(PercentDecoding.splitTarget(head.uri).path)
        else { return nil }
        return length
    }

    /// The whole request is read: written here when `RESTService.directWrite` takes it and the
    /// client's rate admits it, else the router's.
    private func start(_ exchange: Exchange, context: ChannelHandlerContext) {
        let head = exchange.head
        let target = PercentDecoding.splitTarget(head.uri)
        guard let method = HTTPRequest.Method(head.method.rawValue),
            let write = serving.service.directWrite(
                method: method,
                path: target.path,
                query: target.query,
                authorization: head.headers.first(name: "authorization"),
                body: exchange.body
            ),
            admits(write, of: exchange, channel: context.channel)
        else { return hand(exchange, ended: true, context: context) }
        exchange.write = write
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        write.engine.write(write.write, as: write.caller) { result in
            eventLoop.execute { handler.value.written(result) }
        }
    }

    /// Whether `write` is this node's to write now (on a node of a cluster: a namespace it
    /// serves, `ClusterRouting.writesDirectly`) and its client's rate admits it; a write another
    /// node relayed was counted there, and the router does not count it here either.
    private func admits(_ write: RESTService.DirectWrite, of exchange: Exchange, channel: any Channel) -> Bool {
        if let cluster = serving.cluster {
            guard cluster.routing.writesDirectly(namespace: write.namespace, caller: write.caller) else { return false }
            if exchange.relayedByNode { return true }
        }
        return serving.limiter?.admit(channel.remoteAddress?.ipAddress) ?? true
    }

    /// The writer's answer, on the loop: the write's, or its error's as the router maps it. A
    /// failed write is never run again: its outcome may be unknown (a cluster's append whose
    /// commit was not confirmed), and the router would not retry it either.
    private func written(_ result: Result<WriteResult, any Error>) {
        guard let context, let exchange, let write = exchange.write else { return }
        let answer: (status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8]?)
        switch result {
        case .success(.committed(_, let values)):
            let body = RESTService.committedAnswer(
                of: write.write.operation,
                pushID: write.pushID,
                values: values,
                format: .plain
            )
            answer = ResponseBuilder.jsonParts(body, print: write.print)
        case .success(.conditionFailed):
            // Not asked for (the path takes no `If-Match`): the router's, as it changed nothing.
            exchange.write = nil
            return hand(exchange, ended: true, context: context)
        case .failure(let error):
            let parts = ErrorResponder.parts(for: ErrorResponder.restError(for: error, logger: serving.service.logger))
            answer = (parts.status, parts.headers, parts.body)
        }
        self.exchange = nil
        serving.service.bodyMemory.release(exchange.announced)
        respond(answer, to: exchange, context: context)
        resume(context: context)
    }

    /// Writes `answer` as the router would: its headers, the length, CORS, `Date`, `Server`.
    private func respond(
        _ answer: (status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8]?),
        to exchange: Exchange,
        context: ChannelHandlerContext
    ) {
        var fields = answer.headers
        if let body = answer.body { fields[.contentLength] = String(body.count) }
        serving.cors.decorate(&fields)
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count + 2)
        for field in fields { headers.add(name: field.name.rawName, value: field.value) }
        headers.add(name: "Date", value: HTTPDateHeader.now)
        headers.add(name: "Server", value: serving.serverName)
        let status = HTTPResponseStatus(statusCode: answer.status.code, reasonPhrase: answer.status.reasonPhrase)
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil
        )
        if let body = answer.body {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))),
                promise: nil
            )
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        serving.answered.increment()
        serving.metrics.request(
            route: MetricsRoute.rest.rawValue,
            status: answer.status.code,
            duration: ContinuousClock.now - exchange.started
        )
        RequestLog.write(
            method: exchange.head.method.rawValue,
            target: exchange.head.uri,
            status: answer.status.code,
            since: exchange.started,
            logger: serving.service.logger,
            details: HearthResponder.logDetails
        )
    }

    /// Gives the request to the router as it was read: its head, its body so far, and its end
    /// when it was read (else `next`, the part that made the handler give it up).
    private func hand(
        _ exchange: Exchange,
        ended: Bool,
        then next: HTTPServerRequestPart? = nil,
        context: ChannelHandlerContext
    ) {
        self.exchange = nil
        serving.service.bodyMemory.release(exchange.announced)
        routerOwes += 1
        context.fireChannelRead(wrapInboundOut(.head(exchange.head)))
        if !exchange.body.isEmpty {
            context.fireChannelRead(wrapInboundOut(.body(context.channel.allocator.buffer(bytes: exchange.body))))
        }
        if ended { context.fireChannelRead(wrapInboundOut(.end(nil))) }
        if let next { context.fireChannelRead(wrapInboundOut(next)) }
        // Hummingbird's channel passes on what it read at the read's completion.
        context.fireChannelReadComplete()
        resume(context: context)
    }

    /// After a write: the parts that waited, a deferred quiesce, and reading again.
    private func resume(context: ChannelHandlerContext) {
        let waiting = held
        held = []
        for part in waiting { read(part, context: context) }
        if !waiting.isEmpty { context.fireChannelReadComplete() }
        if exchange == nil, let quiesce {
            self.quiesce = nil
            context.fireUserInboundEventTriggered(quiesce)
        }
        if readWanted, !readsHeld {
            readWanted = false
            context.read()
        }
    }

    /// Whether the connection reads no more for now: a write is in flight, or parts wait.
    private var readsHeld: Bool { exchange?.write != nil || !held.isEmpty }

    func read(context: ChannelHandlerContext) {
        guard !readsHeld else {
            readWanted = true
            return
        }
        context.read()
    }

    // MARK: Answers and the connection

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { routerOwes = max(0, routerOwes - 1) }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        end()
        context.fireChannelInactive()
    }

    /// A server shutting down closes connections between requests: not in one read here.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if exchange != nil, let event = event as? ChannelShouldQuiesceEvent {
            quiesce = event
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The connection ended: a write in flight still commits, unanswered.
    private func end() {
        if let exchange {
            self.exchange = nil
            serving.service.bodyMemory.release(exchange.announced)
        }
        held = []
    }
}
