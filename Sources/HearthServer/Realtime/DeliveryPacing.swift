/// Whether a loop's drain of the pushes that arrive may run long slices.
///
/// Pushes come in bursts: one commit's pushes share an update, and the updates of one fan-out
/// pass (a commit's default listens, then its query listens after their reads) arrive within
/// `burstWindow` of each other. Fan-out is *sustained* when the last two bursts began less
/// than `sustainedGap` apart. A drain starts at once either way; one that starts for a lone
/// burst (fan-out not sustained) may run long slices until another burst arrives, so the burst
/// leaves in one go, without the pauses (each a timer and a sleep of the loop's thread) that
/// shorter slices would add. (Until 2026-12 a drain under sustained fan-out waited 1 ms for
/// more commits; with the lean load generator that wait no longer paid: decision 0008.)
///
/// The pace follows the bursts' arrivals, not the drains': a drain that catches up with a burst
/// still being fanned out does not make the rest of that burst short-sliced.
struct DeliveryPacing: Sendable {
    let burstWindow: UInt64
    let sustainedGap: UInt64

    /// The update of the last push.
    private var lastUpdate: ObjectIdentifier?
    /// When the current burst began (uptime nanoseconds); nil before the first.
    private var burstStart: UInt64?
    /// Between the beginnings of the last two bursts.
    private var gap: UInt64 = .max
    /// The number of the current burst (0 before the first).
    private(set) var burst: UInt64 = 0

    init(burstWindow: UInt64, sustainedGap: UInt64) {
        self.burstWindow = burstWindow
        self.sustainedGap = sustainedGap
    }

    /// A push of `update` arrived. `now` (uptime nanoseconds) is read only for the first push of
    /// an update. (An update freed and another allocated at its address read as one: at worst
    /// one drain is paced by the gap before it.) Returns whether it began a burst.
    @discardableResult
    mutating func arrived(_ update: ObjectIdentifier, now: () -> UInt64) -> Bool {
        guard update != lastUpdate else { return false }
        lastUpdate = update
        let time = now()
        if let start = burstStart {
            let since = time &- start
            if since < burstWindow { return false }
            gap = since
        }
        burstStart = time
        burst += 1
        return true
    }

    /// For a drain starting now: the number of the burst it serves as lone (its slices may run
    /// long while no other burst begins), or nil under sustained fan-out (short slices).
    var loneBurst: UInt64? {
        gap < sustainedGap ? nil : burst
    }
}
