/// The limits and timings a `RealtimeConnection` decides by, made once per server and shared by
/// its connections (a reference: an idle connection does not carry a copy).
final class RealtimeConnectionLimits: Sendable {
    /// Messages waiting in the backlog at which reading pauses.
    let maxUnhandledFrames: Int
    /// The channel's high watermark (named in the slow-consumer close reason).
    let maxQueuedBytes: Int
    /// A silent peer gets a ping after this long, and is dropped after as long again.
    let pingInterval: Duration?
    /// An anonymous connection with no listen, no onDisconnect operation and no request but
    /// keep-alives for this long is closed; nil: never.
    let authOrListenTimeout: Duration?

    init(maxUnhandledFrames: Int, maxQueuedBytes: Int, pingInterval: Duration?, authOrListenTimeout: Duration?) {
        self.maxUnhandledFrames = maxUnhandledFrames
        self.maxQueuedBytes = maxQueuedBytes
        self.pingInterval = pingInterval
        self.authOrListenTimeout = authOrListenTimeout
    }

    convenience init(_ configuration: RealtimeConfiguration) {
        self.init(
            maxUnhandledFrames: configuration.maxUnhandledFrames,
            maxQueuedBytes: configuration.maxQueuedBytes,
            pingInterval: configuration.webSocketPingInterval,
            authOrListenTimeout: configuration.authOrListenTimeout
        )
    }
}
