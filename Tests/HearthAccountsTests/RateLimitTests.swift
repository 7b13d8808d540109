import Synchronization
import Testing

@testable import HearthAccounts

struct RateLimitTests {
    /// The slow-downs the store asked for, in seconds.
    final class Delays: Sendable {
        private let recorded = Mutex<[Double]>([])
        var all: [Double] { recorded.withLock { $0 } }
        func record(_ seconds: Double) { recorded.withLock { $0.append(seconds) } }
    }

    @Test func failuresLockOnlyTheirAddressOutOfTheAccountUntilTheWindowPasses() async throws {
        let delays = Delays()
        try await TemporaryAccounts.with(configure: {
            $0.failuresPerAccount = 3
            $0.failureWindow = 60
            $0.delay = { delays.record($0) }
        }) { store, temporary in
            _ = try await store.signUp(email: "ada@example.com", password: "secret1")
            for _ in 0..<3 {
                await expectAccountsError(.invalidLoginCredentials) {
                    try await store.signIn(email: "ada@example.com", password: "wrong-1", clientAddress: "10.0.0.1")
                }
            }
            // That address is refused even the right password now...
            await expectAccountsError(.tooManyAttempts) {
                try await store.signIn(email: "ADA@example.com", password: "secret1", clientAddress: "10.0.0.1")
            }
            // ... but the owner elsewhere signs in, slowed down a little, not locked out.
            _ = try await store.signIn(email: "ADA@example.com", password: "secret1", clientAddress: "10.0.0.2")
            #expect(delays.all.last == 0.25)
            // Other accounts are not affected.
            _ = try await store.signUp(email: "bob@example.com", password: "secret1")
            _ = try await store.signIn(email: "bob@example.com", password: "secret1", clientAddress: "10.0.0.1")
            temporary.clock.advance(61)
            _ = try await store.signIn(email: "ada@example.com", password: "secret1", clientAddress: "10.0.0.1")
        }
    }

    @Test func guessingFromManyAddressesSlowsTheAccountDownButNeverLocksItsOwnerOut() async throws {
        let delays = Delays()
        try await TemporaryAccounts.with(configure: {
            $0.failuresPerAccount = 2
            $0.failuresPerAddress = 1_000
            $0.delay = { delays.record($0) }
        }) { store, _ in
            _ = try await store.signUp(email: "ada@example.com", password: "secret1")
            for attacker in 0..<20 {
                await expectAccountsError(.invalidLoginCredentials) {
                    try await store.signIn(
                        email: "ada@example.com",
                        password: "guess",
                        clientAddress: "10.6.0.\(attacker)"
                    )
                }
            }
            // The slow-down grows by a step per failure past the limit, up to its cap.
            #expect(delays.all.prefix(4) == [0.25, 0.5, 0.75, 1.0])
            #expect(delays.all.max() == 2)
            _ = try await store.signIn(email: "ada@example.com", password: "secret1", clientAddress: "192.0.2.7")
            #expect(delays.all.last == 2)
        }
    }

    @Test func anAddressIsLockedAfterFailuresAcrossAccounts() async throws {
        try await TemporaryAccounts.with(configure: {
            $0.failuresPerAddress = 4
            $0.failuresPerAccount = 100
        }) { store, _ in
            _ = try await store.signUp(email: "ada@example.com", password: "secret1")
            for index in 0..<4 {
                await expectAccountsError(.invalidLoginCredentials) {
                    try await store.signIn(
                        email: "user\(index)@example.com",
                        password: "guess-1",
                        clientAddress: "10.9.9.9"
                    )
                }
            }
            await expectAccountsError(.tooManyAttempts) {
                try await store.signIn(email: "ada@example.com", password: "secret1", clientAddress: "10.9.9.9")
            }
            _ = try await store.signIn(email: "ada@example.com", password: "secret1", clientAddress: "10.1.1.1")
        }
    }

    @Test func aSuccessForgetsTheAccountsFailures() async throws {
        try await TemporaryAccounts.with(configure: { $0.failuresPerAccount = 2 }) { store, _ in
            _ = try await store.signUp(email: "ada@example.com", password: "secret1")
            for _ in 0..<3 {
                await expectAccountsError(.invalidLoginCredentials) {
                    try await store.signIn(email: "ada@example.com", password: "wrong-1")
                }
                if (try? await store.signIn(email: "ada@example.com", password: "secret1")) == nil {
                    Issue.record("one failure locked the account")
                }
            }
        }
    }

    @Test func limiterMemoryStaysBounded() {
        let limiter = FailureLimiter(limit: 1, window: 10, maxKeys: 100)
        for index in 0..<1_000 { limiter.recordFailure("k\(index)", now: Double(index) / 1000) }
        #expect(limiter.isBlocked("k999", now: 1))
        #expect(!limiter.isBlocked("k0", now: 1))
    }
}
