import NIOCore
import NIOPosix

/// A request's bytes, already encoded, with the promise its response completes.
struct PendingRequest: Sendable {
    var bytes: ByteBuffer
    var promise: EventLoopPromise<HTTPResponse>
}

struct ConnectionClosedError: Error, CustomStringConvertible {
    var description: String { "the server closed the connection" }
}

/// Pairs written requests with decoded responses, in order (HTTP/1.1 keep-alive).
final class HTTPClientHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPResponse
    typealias OutboundIn = PendingRequest
    typealias OutboundOut = ByteBuffer

    private var waiting = CircularBuffer<EventLoopPromise<HTTPResponse>>()
    private var closed = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        guard !closed else {
            request.promise.fail(ConnectionClosedError())
            promise?.fail(ConnectionClosedError())
            return
        }
        waiting.append(request.promise)
        context.write(wrapOutboundOut(request.bytes), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let response = unwrapInboundIn(data)
        waiting.popFirst()?.succeed(response)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(ConnectionClosedError())
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        failAll(error)
        context.close(promise: nil)
    }

    private func failAll(_ error: Error) {
        closed = true
        while let promise = waiting.popFirst() { promise.fail(error) }
    }
}

/// One keep-alive HTTP/1.1 connection to the server.
struct HTTPConnection: Sendable {
    let channel: Channel

    var eventLoop: EventLoop { channel.eventLoop }
    var allocator: ByteBufferAllocator { channel.allocator }

    static func connect(to target: ServerTarget, on eventLoop: EventLoop) async throws -> HTTPConnection {
        let channel = try await ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPResponseParser()))
                    try channel.pipeline.syncOperations.addHandler(HTTPClientHandler())
                }
            }
            .connect(host: target.host, port: target.port)
            .get()
        return HTTPConnection(channel: channel)
    }

    /// Sends pre-encoded request bytes; the future completes with the response.
    func send(_ bytes: ByteBuffer) -> EventLoopFuture<HTTPResponse> {
        let promise = channel.eventLoop.makePromise(of: HTTPResponse.self)
        channel.writeAndFlush(PendingRequest(bytes: bytes, promise: promise)).whenFailure { error in
            promise.fail(error)
        }
        return promise.futureResult
    }

    func send(_ request: RequestBuilder) async throws -> HTTPResponse {
        try await send(request.encode(allocator: allocator)).get()
    }

    func close() async {
        try? await channel.close()
    }
}

/// Opens a connection, runs `body` with it, and closes it whatever happens.
func withConnection<T>(
    to target: ServerTarget,
    on eventLoop: EventLoop,
    _ body: (HTTPConnection) async throws -> T
) async throws -> T {
    let connection = try await HTTPConnection.connect(to: target, on: eventLoop)
    do {
        let result = try await body(connection)
        await connection.close()
        return result
    } catch {
        await connection.close()
        throw error
    }
}
