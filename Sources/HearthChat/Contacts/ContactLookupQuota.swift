import Crypto
import Dispatch
import Synchronization

/// How many distinct phone numbers and e-mail addresses each caller of `matchContacts` may
/// look up: a token bucket charged one token per input the caller never asked about before
/// (an address book synced again costs nothing), refilled steadily. Past it the call is
/// refused whole with `RESOURCE_EXHAUSTED` and a retry time, so contact discovery cannot be
/// turned into enumerating a country's numbers (as Signal's per-account quotas prevent).
///
/// Kept in memory: a restart refills every bucket. Memory is bounded: each caller remembers at
/// most `Limits.rememberedPerCaller` inputs (the oldest are forgotten: asking them again costs a
/// token again) and all callers together `Limits.rememberedInAll` (the least recently active
/// callers are forgotten whole).
public final class ContactLookupQuota: Sendable {
    /// The quota's sizes; the defaults are far above what a real address book needs.
    public struct Limits: Sendable, Equatable {
        /// Tokens in a full bucket: the distinct inputs a new caller may look up at once.
        public var capacity: Int
        /// Tokens added per hour, up to `capacity`.
        public var refillPerHour: Int

        public init(capacity: Int = 10_000, refillPerHour: Int = 1_000) {
            self.capacity = capacity
            self.refillPerHour = refillPerHour
        }

        var rememberedPerCaller: Int { max(2 * capacity, 1_000) }
        var rememberedInAll: Int { 4_000_000 }
    }

    /// A refused charge: how many inputs were new, and when enough tokens will be there.
    public struct Refusal: Error, Equatable {
        public let newInputs: Int
        public let available: Int
        /// Seconds until the bucket holds `newInputs` tokens; nil when it never will (more new
        /// inputs than a full bucket).
        public let retryAfterSeconds: Int?
    }

    private struct Caller {
        var tokens: Double
        var refilledAt: Double
        var asked: Set<UInt64> = []
        var order: [UInt64] = []
        var orderStart = 0
        var lastActive: Double
    }

    private struct State {
        var callers: [String: Caller] = [:]
        var remembered = 0
    }

    public let limits: Limits
    private let clock: @Sendable () -> Double
    private let state = Mutex(State())

    /// - Parameter clock: seconds, monotonic enough for refills (tests pass their own).
    public init(limits: Limits = Limits(), clock: @escaping @Sendable () -> Double = ContactLookupQuota.uptime) {
        self.limits = limits
        self.clock = clock
    }

    public static func uptime() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    /// Charges `caller` one token per input of `inputs` (normalised: E.164 numbers, lower-cased
    /// e-mails) it has not asked about before, all or nothing.
    /// - Returns: how many tokens were charged.
    /// - Throws: `Refusal` when the bucket holds fewer tokens than new inputs (nothing charged,
    ///   nothing remembered).
    @discardableResult
    public func charge(_ caller: String, inputs: [String]) throws(Refusal) -> Int {
        let hashes = Set(inputs.map(Self.hash))
        let now = clock()
        let result: Result<Int, Refusal> = state.withLock { state in
            var entry =
                state.callers[caller]
                ?? Caller(tokens: Double(limits.capacity), refilledAt: now, lastActive: now)
            let perSecond = Double(limits.refillPerHour) / 3600
            entry.tokens = min(Double(limits.capacity), entry.tokens + max(0, now - entry.refilledAt) * perSecond)
            entry.refilledAt = now
            entry.lastActive = now
            let fresh = hashes.filter { !entry.asked.contains($0) }
            guard Double(fresh.count) <= entry.tokens else {
                let missing = Double(fresh.count) - entry.tokens
                let wait: Int? =
                    fresh.count > limits.capacity || perSecond <= 0 ? nil : Int((missing / perSecond).rounded(.up))
                state.callers[caller] = entry
                return .failure(Refusal(newInputs: fresh.count, available: Int(entry.tokens), retryAfterSeconds: wait))
            }
            entry.tokens -= Double(fresh.count)
            for hash in fresh {
                entry.asked.insert(hash)
                entry.order.append(hash)
            }
            state.remembered += fresh.count
            let excess = entry.asked.count - limits.rememberedPerCaller
            if excess > 0 { state.remembered -= Self.forget(excess, of: &entry) }
            state.callers[caller] = entry
            if state.remembered > limits.rememberedInAll {
                Self.forgetLeastActive(&state, keep: caller, limits: limits)
            }
            return .success(fresh.count)
        }
        return try result.get()
    }

    /// Forgets the `count` oldest inputs of `entry`; returns how many went.
    private static func forget(_ count: Int, of entry: inout Caller) -> Int {
        let end = min(entry.order.count, entry.orderStart + count)
        for hash in entry.order[entry.orderStart..<end] { entry.asked.remove(hash) }
        let forgotten = end - entry.orderStart
        entry.orderStart = end
        if entry.orderStart > entry.order.count / 2 {
            entry.order.removeFirst(entry.orderStart)
            entry.orderStart = 0
        }
        return forgotten
    }

    /// Forgets whole callers, least recently active first, until a tenth of the room is free.
    private static func forgetLeastActive(_ state: inout State, keep: String, limits: Limits) {
        let target = limits.rememberedInAll * 9 / 10
        for (uid, caller) in state.callers.sorted(by: { $0.value.lastActive < $1.value.lastActive }) {
            guard state.remembered > target else { return }
            if uid == keep { continue }
            state.remembered -= caller.asked.count
            state.callers[uid] = nil
        }
    }

    /// 64 bits of SHA-256: inputs are remembered without being kept.
    private static func hash(_ input: String) -> UInt64 {
        SHA256.hash(data: Array(input.utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
