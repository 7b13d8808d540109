/// The limits and timings a `RealtimeConnection` decides by, made once per server and shared by
/// its connections (a reference: an idle connection does not carry a copy).
final class RealtimeConnectionLimits: Sendable {
    /// Messages waiting in the backlog at which reading pauses.
    let maxUnhandledFrames: Int
    /// The channel's high watermark (named in the slow-consumer close reason).
    let maxQueuedBytes: Int
    /// A peer silent for this long is dropped (pinged halfway); nil: never.
    let livenessTimeout: Duration?
    /// An anonymous connection with no listen, no onDisconnect operation and no request but
    /// keep-alives for this long is closed; nil: never.
    let authOrListenTimeout: Duration?

    init(maxUnhandledFrames: Int, maxQueuedBytes: Int, livenessTimeout: Duration?, authOrListenTimeout: Duration?) {
        self.maxUnhandledFrames = maxUnhandledFrames
        self.maxQueuedBytes = maxQueuedBytes
        self.livenessTimeout = livenessTimeout
        self.authOrListenTimeout = authOrListenTimeout
    }

    convenience init(_ configuration: RealtimeConfiguration) {
        self.init(
            maxUnhandledFrames: configuration.maxUnhandledFrames,
            maxQueuedBytes: configuration.maxQueuedBytes,
            livenessTimeout: configuration.livenessTimeout,
            authOrListenTimeout: configuration.authOrListenTimeout
        )
    }
}
