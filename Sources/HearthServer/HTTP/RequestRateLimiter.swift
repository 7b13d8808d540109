import Dispatch
import Synchronization

/// A token bucket of HTTP requests per client address: `rate` a second, bursts up to `burst`.
/// Loopback peers are not limited unless `limitsLoopback` (a reverse proxy on the same machine
/// makes every client look like one loopback address). Memory stays bounded: past `maxAddresses`
/// the buckets that are full again (idle addresses) are dropped, then the oldest.
final class RequestRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let rate: Double
    let burst: Double
    let limitsLoopback: Bool
    let maxAddresses: Int
    private let buckets = Mutex<[String: Bucket]>([:])
    private let now: @Sendable () -> Double

    init(
        rate: Double,
        burst: Double? = nil,
        limitsLoopback: Bool = false,
        maxAddresses: Int = 100_000,
        now: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    ) {
        self.rate = rate
        self.burst = burst ?? rate * 2
        self.limitsLoopback = limitsLoopback
        self.maxAddresses = maxAddresses
        self.now = now
    }

    /// Takes one request of `address` from its bucket; false when the bucket is empty.
    func admit(_ address: String?) -> Bool {
        guard let address else { return true }
        if !limitsLoopback && LoopbackAddress.contains(address) {
            return true
        }
        let time = now()
        return buckets.withLock { buckets in
            var bucket = buckets[address] ?? Bucket(tokens: burst, updated: time)
            bucket.tokens = min(burst, bucket.tokens + (time - bucket.updated) * rate)
            bucket.updated = time
            guard bucket.tokens >= 1 else {
                buckets[address] = bucket
                return false
            }
            bucket.tokens -= 1
            if buckets[address] == nil && buckets.count >= maxAddresses { prune(&buckets, now: time) }
            buckets[address] = bucket
            return true
        }
    }

    private func prune(_ buckets: inout [String: Bucket], now: Double) {
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * rate < burst }
        if buckets.count >= maxAddresses {
            let oldest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(buckets.count - maxAddresses / 2)
            for (address, _) in oldest { buckets[address] = nil }
        }
    }
}
