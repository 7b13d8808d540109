import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request to a running Hearth server on this machine (plain HTTP), its response
/// body handed on chunk by chunk as it arrives, so a large download is never held whole. The
/// body handler runs on the connection's event loop and may block it briefly (a file write),
/// which holds further reading back.
struct ServerRequest {
    let server: RunningServerAddress
    let method: HTTPMethod
    /// Path and query, e.g. `/.backup`.
    let target: String
    /// A request body read in chunks (nil: none), with its length when known (else it is sent
    /// chunked).
    var upload: (length: Int64?, next: @Sendable () throws -> [UInt8]?)? = nil

    /// Sends the request; `onBody` gets each chunk of a 200 answer (another 2xx succeeds too).
    /// - Throws: `CLIError` with the server's message when it answers anything else, or when
    ///   the connection fails or ends early.
    func send(onBody: @escaping @Sendable (ByteBuffer) throws -> Void) async throws {
        let done = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self)
        let handler = ResponseHandler(target: target, done: done, onBody: onBody)
        let channel: Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.pipeline.addHTTPClientHandlers().flatMap { channel.pipeline.addHandler(handler) }
                }
                .connect(host: server.host, port: server.port)
                .get()
        } catch {
            throw CLIError(
                .remote,
                "Cannot reach the Hearth server at \(server.host):\(server.port): \(error). Is it running?"
            )
        }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target)
        head.headers.add(name: "Host", value: "\(server.host):\(server.port)")
        head.headers.add(name: "Authorization", value: "Bearer \(server.adminSecret)")
        head.headers.add(name: "Connection", value: "close")
        if let upload {
            if let length = upload.length {
                head.headers.add(name: "Content-Length", value: String(length))
            } else {
                head.headers.add(name: "Transfer-Encoding", value: "chunked")
            }
            head.headers.add(name: "Content-Type", value: "application/json")
        }
        do {
            try await channel.writeAndFlush(HTTPClientRequestPart.head(head)).get()
            if let upload {
                while let chunk = try upload.next() {
                    try await channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: chunk))))
                        .get()
                }
            }
            try await channel.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
        } catch let error as CLIError {
            channel.close(promise: nil)
            throw error
        } catch {
            // The server may answer (and close) before the last of the request is written: its
            // answer decides; a write that failed otherwise fails the request below.
            channel.close(promise: nil)
        }
        do {
            try await done.futureResult.get()
        } catch {
            channel.close(promise: nil)
            throw error
        }
        try? await channel.close().get()
    }
}

/// Hands a 200 answer's body on (any 2xx succeeds); collects any other answer (up to 64 KB)
/// for its message.
private final class ResponseHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart

    private let target: String
    private let done: EventLoopPromise<Void>
    private let onBody: @Sendable (ByteBuffer) throws -> Void
    private var status: HTTPResponseStatus?
    private var refusal: [UInt8] = []
    private var finished = false

    init(target: String, done: EventLoopPromise<Void>, onBody: @escaping @Sendable (ByteBuffer) throws -> Void) {
        self.target = target
        self.done = done
        self.onBody = onBody
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = head.status
        case .body(let buffer):
            if status == .ok {
                do {
                    try onBody(buffer)
                } catch {
                    fail(error, context: context)
                }
            } else if refusal.count < 65_536 {
                refusal += buffer.readableBytesView.prefix(65_536 - refusal.count)
            }
        case .end:
            guard !finished else { return }
            finished = true
            if let status, (200..<300).contains(status.code) {
                done.succeed(())
            } else {
                let message = String(decoding: refusal, as: UTF8.self)
                done.fail(
                    CLIError(
                        .remote,
                        "The server answered \(status.map { "\($0.code)" } ?? "?") to \(target): \(message)"
                    )
                )
            }
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(CLIError(.remote, "The server closed the connection before the end of \(target)."), context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        fail(CLIError(.remote, "The connection to the server failed during \(target): \(error)"), context: context)
    }

    private func fail(_ error: Error, context: ChannelHandlerContext) {
        guard !finished else { return }
        finished = true
        done.fail(error)
        context.close(promise: nil)
    }
}
