import Synchronization
import Testing

@testable import HearthChat

@Suite struct ContactLookupQuotaTests {
    final class FakeClock: Sendable {
        let seconds = Mutex<Double>(0)
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
        var read: @Sendable () -> Double { { self.seconds.withLock { $0 } } }
    }

    @Test func tokensRefillOverTimeUpToTheCapacity() throws {
        let clock = FakeClock()
        let quota = ContactLookupQuota(limits: .init(capacity: 10, refillPerHour: 360), clock: clock.read)
        #expect(try quota.charge("a", inputs: (0..<10).map { "+1000\($0)" }) == 10)
        #expect(throws: ContactLookupQuota.Refusal(newInputs: 1, available: 0, retryAfterSeconds: 10)) {
            try quota.charge("a", inputs: ["+2000"])
        }
        // Asked before: free, however often.
        #expect(try quota.charge("a", inputs: ["+10003", "+10004"]) == 0)
        clock.advance(10)
        #expect(try quota.charge("a", inputs: ["+2000"]) == 1)
        // A long pause refills to the capacity, not beyond.
        clock.advance(36_000)
        #expect(throws: ContactLookupQuota.Refusal(newInputs: 11, available: 10, retryAfterSeconds: nil)) {
            try quota.charge("a", inputs: (0..<11).map { "+3000\($0)" })
        }
        #expect(try quota.charge("a", inputs: (0..<10).map { "+3000\($0)" }) == 10)
        // Another caller is charged on their own.
        #expect(try quota.charge("b", inputs: (0..<10).map { "+3000\($0)" }) == 10)
    }

    @Test func theOldestRememberedInputsAreForgottenPastTheBound() throws {
        let clock = FakeClock()
        let limits = ContactLookupQuota.Limits(capacity: 1_000, refillPerHour: 3_600_000)
        let quota = ContactLookupQuota(limits: limits, clock: clock.read)
        // 2,000 remembered at most (twice the capacity).
        for round in 0..<3 {
            #expect(try quota.charge("a", inputs: (0..<1_000).map { "+\(round)-\($0)" }) == 1_000)
            clock.advance(10)
        }
        // The first round was forgotten (asking again costs), the last is still free.
        #expect(try quota.charge("a", inputs: (0..<1_000).map { "+2-\($0)" }) == 0)
        #expect(try quota.charge("a", inputs: (0..<10).map { "+0-\($0)" }) == 10)
    }
}
