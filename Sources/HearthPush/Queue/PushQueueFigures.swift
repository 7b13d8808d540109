/// What a push queue holds and has done (`GET /.settings/push.json`, `/metrics`), per
/// namespace.
public struct PushQueueFigures: Sendable, Equatable {
    /// Pushes planned for devices and not yet accepted or given up.
    public var queued = 0
    /// Messages and calls committed whose pushes are not planned yet (normally none for long),
    /// counted up to `PushQueueFigures.maxIntentsCounted`.
    public var intents = 0
    /// Pushes a provider accepted since the server started.
    public var sent = 0
    /// Attempts that failed since the server started, by `PushFailureReason`.
    public var failed: [String: Int] = [:]
    /// Pushes given up since the server started (the device unregistered, the push rejected or
    /// its 24 hours over), by reason.
    public var dropped: [String: Int] = [:]
    /// When the oldest queued push was created (milliseconds since 1970), if any is queued.
    public var oldestCreatedAt: Double?
    /// The devices with queued pushes, oldest first (at most `PushQueueFigures.maxDevicesShown`).
    public var devices: [Device] = []

    /// The most devices `devices` lists.
    public static let maxDevicesShown = 100
    /// The most intents `intents` counts (a scrape reads no further).
    public static let maxIntentsCounted = 100_000

    /// One device's queue.
    public struct Device: Sendable, Equatable {
        public var uid: String
        public var deviceId: String
        /// The id of the push at its head (`Hearth-Push-Id`).
        public var pushId: String
        public var createdAt: Double
        /// Failed attempts at the head push.
        public var failedAttempts: Int
        /// When the head push is tried again (milliseconds since 1970), when it waits.
        public var retryAt: Double?
        /// Why its last attempt failed.
        public var lastFailure: String?

        public init(
            uid: String,
            deviceId: String,
            pushId: String,
            createdAt: Double,
            failedAttempts: Int,
            retryAt: Double?,
            lastFailure: String?
        ) {
            self.uid = uid
            self.deviceId = deviceId
            self.pushId = pushId
            self.createdAt = createdAt
            self.failedAttempts = failedAttempts
            self.retryAt = retryAt
            self.lastFailure = lastFailure
        }
    }

    public init() {}
}

/// The push queues of a server, as the server shows them: the provider's name and each
/// namespace's figures.
public protocol PushQueueStatus: Sendable {
    /// `webhook` or `fcm`.
    var provider: String { get }
    /// Each namespace's figures, by name.
    func figures() async -> [String: PushQueueFigures]
}
