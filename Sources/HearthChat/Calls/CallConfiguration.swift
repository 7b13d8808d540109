/// The chat app's call settings (`ChatApp.services(namespaces:calls:)`).
public struct CallConfiguration: Sendable {
    /// How long a call rings before the server marks it `missed`: 45 s (the contract's).
    public var ringTimeout: Duration
    /// How often the missed-call timer looks for new ringing calls (a call is marked within this
    /// much after its `ringTimeout`); also its pause between looks while nothing rings.
    public var checkInterval: Duration

    public init(ringTimeout: Duration = .seconds(45), checkInterval: Duration = .seconds(1)) {
        self.ringTimeout = ringTimeout
        self.checkInterval = checkInterval
    }
}

extension Duration {
    /// The duration in milliseconds, as server times are kept.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
