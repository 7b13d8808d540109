/// Limits of one realtime connection.
public struct RealtimeSessionConfiguration: Sendable, Equatable {
    /// Listens one connection may hold; more are refused with an error response.
    public var maxListens: Int
    /// The largest message accepted (all its frames), in bytes; larger closes the connection.
    public var maxMessageBytes: Int
    /// Requests received but not yet answered; more closes the connection (the server should
    /// stop reading the socket well before, see `RealtimeSession.pendingRequestCount`).
    public var maxPendingRequests: Int
    /// The longest outgoing frame, in UTF-16 code units.
    public var maxFrameLength: Int
    /// Close the connection after this long without a frame from the client (the SDKs send a
    /// keep-alive `0` after 45 s of silence); nil never closes.
    public var idleTimeoutMilliseconds: Int64?

    public init(
        maxListens: Int = 10_000,
        maxMessageBytes: Int = 16 * 1024 * 1024 + 64 * 1024,
        maxPendingRequests: Int = 25_000,
        maxFrameLength: Int = FrameSplitter.maxFrameLength,
        idleTimeoutMilliseconds: Int64? = nil
    ) {
        self.maxListens = maxListens
        self.maxMessageBytes = maxMessageBytes
        self.maxPendingRequests = maxPendingRequests
        self.maxFrameLength = maxFrameLength
        self.idleTimeoutMilliseconds = idleTimeoutMilliseconds
    }
}
