import Testing

@testable import HearthAccounts

struct RateLimitTests {
    @Test func anAccountIsLockedAfterItsFailuresUntilTheWindowPasses() async throws {
        try await TemporaryAccounts.with(configure: {
            $0.failuresPerAccount = 3
            $0.failureWindow = 60
        }) { store, temporary in
            _ = try await store.signUp(email: "ada@example.com", password: "secret1")
            for _ in 0..<3 {
                await expectAccountsError(.invalidLoginCredentials) {
                    try await store.signIn(email: "ada@example.com", password: "wrong-1", clientAddress: "10.0.0.1")
                }
            }
            // Even the right password is refused now, from any address.
            await expectAccountsError(.tooManyAttempts) {
                try await store.signIn(email: "ADA@example.com", password: "secret1", clientAddress: "10.0.0.2")
            }
            // Other accounts are not affected.
            _ = try await store.signUp(email: "bob@example.com", password: "secret1")
            _ = try await store.signIn(email: "bob@example.com", password: "secret1", clientAddress: "10.0.0.1")
            temporary.clock.advance(61)
            _ = try await store.signIn(email: "ada@example.com", password: "secret1", clientAddress: "10.0.0.1")
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
