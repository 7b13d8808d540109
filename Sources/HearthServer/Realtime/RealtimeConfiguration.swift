/// Limits and timings of realtime connections (WebSocket and SSE).
public struct RealtimeConfiguration: Sendable {
    /// Largest WebSocket frame accepted from a client, in bytes. The SDKs split messages into
    /// frames of 16,384 characters (up to ~48 KiB of UTF-8), but other clients may send a whole
    /// message in one frame, so this matches the largest message.
    public var maxFrameBytes: Int
    /// Largest realtime message (all its frames), in bytes.
    public var maxMessageBytes: Int
    /// Bytes that may wait in one connection's outbound queue; a client that lets more pile up
    /// is closed (WebSocket 1008 "slow consumer", SSE stream ended). A single batch of frames
    /// is always accepted into an empty queue, so a large listen result still goes out.
    public var maxQueuedBytes: Int
    /// Frames read from a socket but not yet handled by the connection's loop; reading pauses
    /// above it.
    public var maxUnhandledFrames: Int
    /// How often a WebSocket session gets a `tick` (credential expiry, idle timeout).
    public var tickInterval: Duration
    /// How often an SSE stream sends `event: keep-alive`.
    public var sseKeepAliveInterval: Duration
    /// How long a closing WebSocket may take to flush its last frames and close frame before
    /// the TCP connection is dropped (a client that stopped reading).
    public var closeTimeout: Duration
    /// How long graceful shutdown waits for realtime connections to close before moving on.
    public var drainTimeout: Duration
    /// The host named in the hello (`h`); nil echoes the `Host` header the client used.
    public var publicHost: String?
    /// Liveness: a WebSocket from which nothing (no frame, no pong) arrived for this long is a
    /// peer that vanished without closing TCP (a phone that lost its network): it is dropped, as
    /// when the client closes it, and its onDisconnect operations run. A ping goes out when it
    /// has been silent for half as long, so a client that answers pings but sends nothing stays;
    /// the SDKs send a keep-alive every 45 s. Checked on each tick (`tickInterval`), so the drop
    /// comes at most one tick later. Nil: never.
    public var livenessTimeout: Duration?
    /// onDisconnect operations one connection may hold (registered and not cancelled); one
    /// more is refused with `failure` (docs/realtime.md, "Durable onDisconnect").
    public var maxOnDisconnectOperations: Int
    /// An anonymous WebSocket with no listen and no onDisconnect operation that sends no request
    /// (keep-alives aside) for this long is closed (1008), checked on each tick. Nil: never.
    public var authOrListenTimeout: Duration? = .seconds(60)
    /// Namespaces that exist nowhere (not on disk, no rules file) that WebSocket upgrades may
    /// open, each an engine in memory until the server stops (a client names the namespace
    /// before it authenticates, and an admin may then create it); past it, an upgrade for
    /// another such namespace is refused (400). Namespaces created since leave the count.
    public var maxProvisionalNamespaces = 1_000
    /// Listens one WebSocket may hold at once (each distinct path and query); one more is
    /// answered `failure` ("Too many listeners on this connection: at most N are allowed.") and
    /// the connection stays open with the listens it has.
    public var maxListensPerConnection = 10_000
    /// How event loops pace the fan-out they deliver (drain slices, the wait under sustained
    /// fan-out).
    public var tuning = RealtimeTuning()

    public init(
        maxFrameBytes: Int = 16 * 1024 * 1024 + 64 * 1024,
        maxMessageBytes: Int = 16 * 1024 * 1024 + 64 * 1024,
        maxQueuedBytes: Int = 8 * 1024 * 1024,
        maxUnhandledFrames: Int = 64,
        tickInterval: Duration = .seconds(5),
        sseKeepAliveInterval: Duration = .seconds(30),
        closeTimeout: Duration = .seconds(3),
        drainTimeout: Duration = .seconds(5),
        publicHost: String? = nil,
        livenessTimeout: Duration? = .seconds(90),
        maxOnDisconnectOperations: Int = 1_000
    ) {
        self.maxOnDisconnectOperations = maxOnDisconnectOperations
        self.livenessTimeout = livenessTimeout
        self.maxFrameBytes = maxFrameBytes
        self.maxMessageBytes = maxMessageBytes
        self.maxQueuedBytes = maxQueuedBytes
        self.maxUnhandledFrames = maxUnhandledFrames
        self.tickInterval = tickInterval
        self.sseKeepAliveInterval = sseKeepAliveInterval
        self.closeTimeout = closeTimeout
        self.drainTimeout = drainTimeout
        self.publicHost = publicHost
    }
}
