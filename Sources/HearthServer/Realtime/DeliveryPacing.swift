/// When a loop's inbox drains the pushes that arrive, and whether a drain may run long slices.
///
/// Pushes come in bursts: one commit's pushes share an update, and the updates of one fan-out
/// pass (a commit's default listens, then its query listens after their reads) arrive within
/// `burstWindow` of each other. Fan-out is *sustained* when the last two bursts began less
/// than `sustainedGap` apart. Then a drain waits `coalesce`, so that its batch holds several
/// commits and each connection gets them in one write. Otherwise the drain starts at once, for
/// a lone burst: until another burst arrives, its slices may run long, so the burst leaves in
/// one go, without the pauses (each a timer and a sleep of the loop's thread) that shorter
/// slices would add.
///
/// The pace follows the bursts' arrivals, not the drains': a drain that catches up with a burst
/// still being fanned out does not make the rest of that burst wait, and a drain that was made
/// to wait does not make the next burst wait too.
struct DeliveryPacing: Sendable {
    enum Start: Equatable {
        /// Drain at once; this burst (its number) is lone while no other has begun.
        case now(lone: UInt64)
        /// Drain after this many nanoseconds.
        case after(nanoseconds: Int64)
    }

    let burstWindow: UInt64
    let sustainedGap: UInt64
    let coalesce: Int64

    /// The update of the last push.
    private var lastUpdate: ObjectIdentifier?
    /// When the current burst began (uptime nanoseconds); nil before the first.
    private var burstStart: UInt64?
    /// Between the beginnings of the last two bursts.
    private var gap: UInt64 = .max
    /// The number of the current burst (0 before the first).
    private(set) var burst: UInt64 = 0

    init(burstWindow: UInt64, sustainedGap: UInt64, coalesce: Int64) {
        self.burstWindow = burstWindow
        self.sustainedGap = sustainedGap
        self.coalesce = coalesce
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

    /// How a drain for the pushes waiting now starts.
    var start: Start {
        gap < sustainedGap ? .after(nanoseconds: coalesce) : .now(lone: burst)
    }
}
