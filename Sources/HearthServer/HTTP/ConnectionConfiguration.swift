import NIOCore

/// Limits and timeouts of the server's connections before they become REST, SSE or WebSocket:
/// how long a client may take to send a request head or stay idle, how large a head may be and
/// how many connections may be open at once. The defaults are far from what a real client does.
public struct ConnectionConfiguration: Sendable {
    /// A new connection, and a keep-alive connection that started its next request, must send
    /// the whole request head (request line and header fields) within this long; else it gets
    /// 408 (or, when it sent nothing, is just closed).
    public var headerTimeout: Duration
    /// A keep-alive connection with no request in progress is closed after this long; so is a
    /// request whose body pauses this long.
    public var idleTimeout: Duration
    /// A request body slower than this on average, counted from its head after a grace of
    /// `headerTimeout`, is closed (a client dribbling a body a byte at a time, each byte just
    /// before `idleTimeout`); the figure and the grace are Apache's `RequestReadTimeout`
    /// `body=...,MinRate=500`. Nil: only `idleTimeout` bounds a body.
    public var minBodyBytesPerSecond: Int? = 500
    /// Open connections (HTTP, SSE and WebSocket together); one more is answered 503 and closed.
    /// Nil: 10,000, or three quarters of the process's open-file limit when that is lower.
    public var maxConnections: Int?
    /// Open connections one client address may hold; one more is answered 429 and closed. Nil:
    /// no limit. Loopback addresses are not limited unless `limitsLoopback` (a reverse proxy on
    /// the same machine makes every client look like one loopback address).
    public var maxConnectionsPerAddress: Int?
    public var limitsLoopback: Bool
    /// HTTP requests one client address may make a second (bursts of twice that); more are
    /// answered 429 with `Retry-After`. Nil: no limit. Loopback as for connections.
    public var maxRequestRatePerAddress: Int?
    /// The longest request line (method, target, version); a longer one is answered 414. Keep it
    /// below `maxHeaderBytes`, which also counts the target.
    public var maxRequestLineBytes: Int
    /// The largest request head; a larger one (or one field larger than this) is answered 431.
    public var maxHeaderBytes: Int
    /// How long a connection refused in the middle of a request (a malformed head, a body not
    /// read) keeps reading and dropping what the client still sends after the answer, so that
    /// the client reads the answer instead of a reset.
    public var lingerTimeout: Duration

    public init(
        headerTimeout: Duration = .seconds(30),
        idleTimeout: Duration = .seconds(75),
        maxConnections: Int? = nil,
        maxConnectionsPerAddress: Int? = 1_000,
        limitsLoopback: Bool = false,
        maxRequestRatePerAddress: Int? = 1_000,
        maxRequestLineBytes: Int = 32 << 10,
        maxHeaderBytes: Int = 64 << 10,
        lingerTimeout: Duration = .seconds(2)
    ) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.limitsLoopback = limitsLoopback
        self.maxRequestRatePerAddress = maxRequestRatePerAddress
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.lingerTimeout = lingerTimeout
    }

    /// The connection cap in force: `maxConnections`, or the default for `openFileLimit`.
    func connectionLimit(openFileLimit: UInt64?) -> Int {
        if let maxConnections { return max(1, maxConnections) }
        guard let openFileLimit else { return Self.defaultMaxConnections }
        return max(1, min(Self.defaultMaxConnections, Int(clamping: openFileLimit / 4 * 3)))
    }

    static let defaultMaxConnections = 10_000

    /// What `HTTPConnectionGuard` enforces.
    var limits: HTTPConnectionState.Limits {
        HTTPConnectionState.Limits(
            headerTimeout: TimeAmount(headerTimeout),
            idleTimeout: TimeAmount(idleTimeout),
            lingerTimeout: TimeAmount(lingerTimeout),
            maxRequestLineBytes: maxRequestLineBytes,
            maxHeaderBytes: maxHeaderBytes,
            minBodyBytesPerSecond: minBodyBytesPerSecond
        )
    }
}
