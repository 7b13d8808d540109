public import AsyncHTTPClient
public import NIOCore

/// The bounds of every provider request: connect, the whole exchange, the answer's body.
public struct PushHTTPConfiguration: Sendable, Hashable {
    /// How long a connection (TCP and TLS) may take to open.
    public var connectTimeout: Duration
    /// How long one request may take from start to the last byte of its answer.
    public var requestTimeout: Duration
    /// How much of an answer's body is read (an error's JSON); the rest is not.
    public var maxResponseBytes: Int

    public init(
        connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(10),
        maxResponseBytes: Int = 64 * 1024
    ) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxResponseBytes = maxResponseBytes
    }

    /// The client the providers should share: this connect timeout, no redirects (a push is
    /// POSTed to the URL given, never elsewhere), a failed connection failing its request at once
    /// rather than waiting for the pool's next try. The caller shuts it down (`shutdown()`).
    public func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(connectTimeout))
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension PushHTTPConfiguration {
    /// `makeClient()` on `group` rather than the shared singleton group: a push service that
    /// runs its own loop (at a lower priority) keeps its provider's I/O there.
    public func makeClient(on group: any EventLoopGroup) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(connectTimeout))
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: group, configuration: configuration)
    }
}
