/// Where a namespace writer runs its rounds (docs/design.md, "Where a round runs";
/// docs/decisions/0002-writer-rounds-on-the-event-loops.md). The defaults are the measured ones;
/// a test or an operator with another machine may change them, and `Database.open` refuses
/// values that cannot work.
public struct WriterTuning: Sendable, Equatable {
    /// A writer whose jobs took longer than this on average (CPU time, in the rounds its loop
    /// ran) lately runs every round on its own thread, until they take less than four fifths of
    /// it; below it, the event loops that hand it writes (`WritePass`) run its rounds. A round of
    /// expensive jobs on a loop would hold up its other connections: a small put takes about
    /// 5–15 µs in a round of many (a round of one, with its log write, 25–45 µs on a busy
    /// machine), a message to a 100-member chat about 600 µs.
    public var loopJobLimit: Duration = .microseconds(100)
    /// A writer's home loop that has handed it no writes of its own for this long gives way to the
    /// next loop that does: a lone writer's loop then runs its rounds itself instead of waking
    /// the home for each of them.
    public var homeIdleLimit: Duration = .milliseconds(100)
    /// While a writer runs its rounds on its own thread, one pass's writes in this long still
    /// go to its loop, so what a job costs there is measured again: the way back. A round on the
    /// thread costs more (decision 0002: a one-put round there took several times the CPU), so
    /// it cannot tell whether the loop would be cheap again.
    public var loopProbeInterval: Duration = .milliseconds(50)

    public init() {}

    /// Why these values cannot work, or nil.
    public var problem: String? {
        if loopJobLimit < .zero || loopJobLimit > .seconds(1) {
            return "WriterTuning.loopJobLimit must be between zero and 1 s (it is \(loopJobLimit))."
        }
        if loopProbeInterval <= .zero || loopProbeInterval > .seconds(60) {
            return
                "WriterTuning.loopProbeInterval must be more than zero and at most 60 s (it is \(loopProbeInterval))."
        }
        if homeIdleLimit <= .zero || homeIdleLimit > .seconds(60) {
            return "WriterTuning.homeIdleLimit must be more than zero and at most 60 s (it is \(homeIdleLimit))."
        }
        return nil
    }
}
