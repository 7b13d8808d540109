/// How an event loop paces the fan-out it delivers to its WebSocket connections
/// (`RealtimeLoopInbox`, `DeliveryPacing`; docs/realtime.md, "Transport"). The defaults are the
/// measured ones (docs/decisions/0008-fan-out-drain-pacing.md); a test or an operator with
/// another machine may change them, and `HearthServer.start` refuses values that cannot work.
public struct RealtimeTuning: Sendable, Equatable {
    /// How long one slice of a drain runs before the loop serves its sockets again, so a
    /// publisher's next write and its answer do not wait for a whole fan-out.
    public var slice: Duration = .microseconds(100)
    /// The slice while a drain serves a lone burst (no other burst arrived, no write cut it short).
    public var loneBurstSlice: Duration = .microseconds(500)
    /// Fan-out is sustained (its drains run short slices) when the last two bursts began less
    /// than this apart.
    public var sustainedGap: Duration = .milliseconds(1)
    /// A burst: the pushes of the updates that arrive within this of its first push.
    public var burstWindow: Duration = .microseconds(250)
    /// A loop none of whose connections sent a frame for this long (they only listen) drains
    /// without pausing between slices: there is nothing to read meanwhile.
    public var quietLoopAfter: Duration = .milliseconds(10)
    /// … for at most this long at a time, so a frame that arrives is read within it; zero: a
    /// quiet loop pauses as any other.
    public var quietLoopRun: Duration = .milliseconds(2)

    public init() {}

    /// Why these values cannot work, or nil.
    public var problem: String? {
        for (name, value) in [("slice", slice), ("loneBurstSlice", loneBurstSlice), ("burstWindow", burstWindow)]
        where value <= .zero || value > .seconds(1) {
            return "RealtimeTuning.\(name) must be more than zero and at most 1 s (it is \(value))."
        }
        for (name, value) in [
            ("sustainedGap", sustainedGap), ("quietLoopAfter", quietLoopAfter), ("quietLoopRun", quietLoopRun),
        ] where value < .zero || value > .seconds(1) {
            return "RealtimeTuning.\(name) must be between zero and 1 s (it is \(value))."
        }
        return nil
    }
}
