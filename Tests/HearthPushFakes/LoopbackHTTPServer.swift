import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A request as a fake server sees it: method, path, query, headers and the whole body.
public struct FakeHTTPRequest: Sendable {
    public var method: String
    public var path: String
    public var query: String
    public var headers: HTTPFields
    public var body: [UInt8]

    /// The first value of the header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        guard let field = HTTPField.Name(name) else { return nil }
        return headers[field]
    }
}

/// A fake server's answer: status, headers, body, and how long to wait before it.
public struct FakeHTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Waits this long before answering (a server too slow for the client's deadline).
    public var delay: Duration?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], delay: Duration? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ text: String, headers: [(String, String)] = []) -> FakeHTTPResponse {
        FakeHTTPResponse(
            status: status,
            headers: [("Content-Type", "application/json")] + headers,
            body: Array(text.utf8)
        )
    }
}

/// An HTTP/1.1 server on a free port of 127.0.0.1 that answers every request with `respond`:
/// the ground the fake FCM and the webhook receiver stand on.
public final class LoopbackHTTPServer: Sendable {
    /// The port it listens on.
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    /// Starts listening and returns once it does.
    public static func start(
        name: String,
        respond: @escaping @Sendable (FakeHTTPRequest) async -> FakeHTTPResponse
    ) async throws -> LoopbackHTTPServer {
        var logger = Logger(label: "hearth.fake.\(name)")
        logger.logLevel = .critical
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            let body = try await request.body.collect(upTo: 4 << 20)
            let fake = FakeHTTPRequest(
                method: request.method.rawValue,
                path: request.uri.path,
                query: request.uri.query ?? "",
                headers: request.headers,
                body: Array(buffer: body)
            )
            let answer = await respond(fake)
            if let delay = answer.delay { try? await Task.sleep(for: delay) }
            var headers = HTTPFields()
            for (name, value) in answer.headers {
                if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
            }
            return Response(
                status: HTTPResponse.Status(code: answer.status),
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
            )
        }
        let app = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: name),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [], logger: logger)
        )
        let task = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw FakeServerError("The fake \(name) server stopped before it listened.")
        }
        return LoopbackHTTPServer(port: port, group: group, task: task)
    }

    /// Stops listening and waits until the server has stopped.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}

/// A fake server that cannot start.
public struct FakeServerError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
