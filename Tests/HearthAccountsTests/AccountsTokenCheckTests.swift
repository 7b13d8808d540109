import Foundation
import Testing

@testable import HearthAccounts

/// The accounts endpoints check ID tokens as the database does (`IDTokenVerifier`): a token
/// without `exp`, without `iat`, or issued in the future is refused, though its signature is good.
struct AccountsTokenCheckTests {
    /// The claims of a token for `uid`, as the store mints them, with `changes` applied.
    static func claims(uid: String, now: Double, _ changes: [String: Any?]) -> [String: Any] {
        var claims: [String: Any] = [
            "user_id": uid, "sub": uid, "iat": Int64(now), "exp": Int64(now) + 3600, "auth_time": Int64(now),
            "firebase": ["sign_in_provider": "password"],
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    @Test func tokensWithoutExpOrIatOrFromTheFutureAreRefused() async throws {
        try await TemporaryAccounts.with { store, temporary in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            let uid = created.account.localId
            let signer = try #require(store.signer)
            let now = temporary.clock.now
            temporary.clock.advance(1)
            #expect(try store.lookup(idToken: signer.sign(Self.claims(uid: uid, now: now, [:]))).localId == uid)
            await expectAccountsError(.invalidIDToken) {
                try store.lookup(idToken: signer.sign(Self.claims(uid: uid, now: now, ["exp": nil])))
            }
            await expectAccountsError(.invalidIDToken) {
                try store.lookup(idToken: signer.sign(Self.claims(uid: uid, now: now, ["iat": nil])))
            }
            await expectAccountsError(.invalidIDToken) {
                try store.lookup(idToken: signer.sign(Self.claims(uid: uid, now: now, ["iat": Int64(now) + 3600])))
            }
            // A little skew between clocks is allowed.
            let skewed = signer.sign(Self.claims(uid: uid, now: now, ["iat": Int64(now) + 60]))
            #expect(try store.lookup(idToken: skewed).localId == uid)
            await expectAccountsError(.tokenExpired) {
                try store.lookup(idToken: signer.sign(Self.claims(uid: uid, now: now, ["exp": Int64(now)])))
            }
            // Nothing was changed by the refusals.
            await expectAccountsError(.invalidIDToken) {
                try await store.update(
                    idToken: signer.sign(Self.claims(uid: uid, now: now, ["exp": nil])),
                    changes: AccountChanges(displayName: "Eve")
                )
            }
            #expect(try store.lookup(idToken: created.idToken).displayName == nil)
        }
    }

    @Test func aDeletedAccountsTokenIsUnknownAndADisabledOnesIsDisabled() async throws {
        try await TemporaryAccounts.with { store, _ in
            let ada = try await store.signUp(email: "ada@example.com", password: "secret1")
            let bob = try await store.signUp(email: "bob@example.com", password: "secret1")
            _ = try await store.update(uid: ada.account.localId, changes: AccountChanges(disabled: true))
            await expectAccountsError(.userDisabled) { try store.lookup(idToken: ada.idToken) }
            try await store.delete(idToken: bob.idToken)
            await expectAccountsError(.userNotFound) { try store.lookup(idToken: bob.idToken) }
        }
    }
}
