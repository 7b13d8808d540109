/// Server-kept presence (`presence/$uid` = `{state: "online"|"offline", lastChanged}`) in the
/// namespaces that run the chat app: which namespaces, and how transitions are batched
/// (docs/realtime.md, "Presence").
public struct PresenceConfiguration: Sendable {
    /// The namespaces whose signed-in realtime connections (WebSocket and SSE) are counted;
    /// empty: presence is off. `hearth serve` sets `default` and those of `--chat-ns`.
    public var namespaces: Set<String> = []
    /// How long transitions collect before they are written: a user who drops and reconnects
    /// within it costs no write, and a storm of connections ending is a few commits. The
    /// contract wants `offline` within 1 s of the last connection's end.
    public var flushDelay: Duration = .milliseconds(100)
    /// The most users one commit writes (a storm is split into commits of at most this many).
    public var maxUsersPerCommit = 2_500
    /// The clock the writer waits out `flushDelay` on: the continuous clock; a test's own, to
    /// close a window when the test says (a reconnect inside it however busy the machine).
    public var clock: any Clock<Duration> = ContinuousClock()

    public init(namespaces: Set<String> = [], flushDelay: Duration = .milliseconds(100), maxUsersPerCommit: Int = 2_500)
    {
        self.namespaces = namespaces
        self.flushDelay = flushDelay
        self.maxUsersPerCommit = maxUsersPerCommit
    }

    /// What is wrong with these settings, or nil.
    var problem: String? {
        if maxUsersPerCommit < 1 {
            return "Invalid presence maxUsersPerCommit '\(maxUsersPerCommit)': it must be at least 1."
        }
        if flushDelay < .zero || flushDelay > .seconds(1) {
            return "Invalid presence flushDelay '\(flushDelay)': it must be between 0 and 1 second "
                + "(offline must be written within 1 s of the last connection's end)."
        }
        return nil
    }
}
