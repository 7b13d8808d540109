import NIOCore

/// Sits before NIO's HTTP/1 parser and shows `HTTPConnectionGuard` the raw bytes: it measures
/// the request line (the parser would count the target against the header limit and answer
/// 431 where 414 is meant), notices the first byte of a request (which starts its header
/// timeout), and drops everything once the connection is refused or lingering.
final class RequestLineGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let connection: HTTPConnectionGuard

    init(reportingTo connection: HTTPConnectionGuard) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if connection.shouldParse(unwrapInboundIn(data)) {
            context.fireChannelRead(data)
        }
    }
}

@available(*, unavailable)
extension RequestLineGuard: Sendable {}
