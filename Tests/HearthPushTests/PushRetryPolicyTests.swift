import Foundation
import HearthPush
import Testing

/// A generator that always yields one value: 0 gives the shortest jittered wait, `.max` the longest.
struct FixedRandom: RandomNumberGenerator {
    var value: UInt64
    mutating func next() -> UInt64 { value }
}

/// SplitMix64, seeded: many different jitters, the same on every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

struct PushRetryPolicyTests {
    let policy = PushRetryPolicy()
    let created = Date(timeIntervalSince1970: 1_800_000_000)

    func wait(
        after failures: Int,
        at now: Date? = nil,
        hint: Duration? = nil,
        random: some RandomNumberGenerator
    ) -> TimeInterval? {
        var random = random
        let now = now ?? created
        guard
            case .retry(let at) = policy.decision(
                afterFailedAttempts: failures,
                createdAt: created,
                now: now,
                hint: hint,
                using: &random
            )
        else { return nil }
        return at.timeIntervalSince(now)
    }

    @Test func firstRetryFallsWithinTwoSeconds() {
        var random = SeededRandom(state: 1)
        for _ in 0..<1000 {
            guard case .retry(let at) = policy.decision(afterFailedAttempts: 1, createdAt: created, now: created, using: &random)
            else { Issue.record("no retry"); return }
            #expect(at.timeIntervalSince(created) >= 1 && at.timeIntervalSince(created) <= 2)
        }
        #expect(wait(after: 1, random: FixedRandom(value: 0)) == 1)
        #expect(abs(wait(after: 1, random: FixedRandom(value: .max))! - 2) < 0.001)
    }

    @Test(arguments: [(1, 2.0), (2, 4), (3, 8), (4, 16), (9, 512), (10, 600), (11, 600), (50, 600), (10_000, 600)])
    func waitsDoubleUpToTenMinutesWithHalfTheirLengthAsJitter(failures: Int, nominal: Double) {
        let range = policy.backoffRange(afterFailedAttempts: failures)
        #expect(range == .seconds(nominal / 2) ... .seconds(nominal))
        #expect(wait(after: failures, random: FixedRandom(value: 0)) == nominal / 2)
        #expect(abs(wait(after: failures, random: FixedRandom(value: .max))! - nominal) < 0.001)
    }

    @Test func jitterSpreadsRetriesOfManyPushes() {
        var random = SeededRandom(state: 42)
        var waits: [TimeInterval] = []
        for _ in 0..<200 {
            guard case .retry(let at) = policy.decision(afterFailedAttempts: 5, createdAt: created, now: created, using: &random)
            else { Issue.record("no retry"); return }
            waits.append(at.timeIntervalSince(created))
        }
        #expect(Set(waits.map { Int($0 * 10) }).count > 50)
        #expect(waits.allSatisfy { $0 >= 16 && $0 <= 32 })
    }

    @Test func providersHintIsHonouredButNeverBeyondTenMinutes() {
        // A hint longer than the backoff is waited out exactly.
        #expect(wait(after: 1, hint: .seconds(30), random: FixedRandom(value: .max)) == 30)
        // A hint shorter than the backoff does not shorten it.
        #expect(wait(after: 6, hint: .seconds(1), random: FixedRandom(value: 0)) == 32)
        // A hint past the longest wait is capped.
        #expect(wait(after: 1, hint: .seconds(86_400), random: FixedRandom(value: 0)) == 600)
    }

    @Test func pushesExpireTwentyFourHoursAfterCreation() {
        let almost = created.addingTimeInterval(86_399)
        // The last retry is moved to the end of the window, not past it.
        #expect(wait(after: 40, at: almost, random: FixedRandom(value: .max)) == 1)
        var random = FixedRandom(value: 0)
        let end = created.addingTimeInterval(86_400)
        #expect(policy.decision(afterFailedAttempts: 41, createdAt: created, now: end, using: &random) == .expire)
        #expect(policy.isExpired(createdAt: created, now: end))
        #expect(!policy.isExpired(createdAt: created, now: almost))
        #expect(policy.expiry(createdAt: created) == end)
    }

    @Test func retriesOverADayFitTheSchedule() {
        // Retrying at once on every failure, a push gets at most this many attempts in its window.
        var now = created
        var attempts = 0
        var random = SeededRandom(state: 7)
        while case .retry(let at) = policy.decision(afterFailedAttempts: attempts + 1, createdAt: created, now: now, using: &random) {
            attempts += 1
            #expect(at > now)
            now = at
            if attempts > 1000 { break }
        }
        // 10 doublings (about 17 minutes) then one every 5 to 10 minutes for the rest of the day.
        #expect(attempts > 140 && attempts < 300)
    }

    @Test func badSettingsAreNamed() {
        #expect(PushRetryPolicy().problem == nil)
        #expect(PushRetryPolicy(firstDelay: .zero).problem?.contains("firstDelay") == true)
        #expect(PushRetryPolicy(firstDelay: .seconds(5), maximumDelay: .seconds(1)).problem?.contains("maximumDelay") == true)
        #expect(PushRetryPolicy(window: .zero).problem?.contains("window") == true)
    }
}
