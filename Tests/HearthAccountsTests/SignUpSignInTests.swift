import Foundation
import Testing

@testable import HearthAccounts

struct SignUpSignInTests {
    @Test func signUpIssuesFirebaseShapedTokensAndNormalisesTheEmail() async throws {
        try await TemporaryAccounts.with { store, temporary in
            let result = try await store.signUp(email: "  Ada@Example.COM ", password: "secret1", displayName: "Ada")
            #expect(result.account.email == "ada@example.com")
            #expect(result.account.localId.count == 28)
            #expect(result.expiresIn == 3600)
            #expect(result.refreshToken.count == 43)
            let payload = claims(of: result.idToken)
            let now = Int64(temporary.clock.now)
            #expect(payload["user_id"] as? String == result.account.localId)
            #expect(payload["sub"] as? String == result.account.localId)
            #expect(payload["email"] as? String == "ada@example.com")
            #expect(payload["email_verified"] as? Bool == false)
            #expect(payload["name"] as? String == "Ada")
            #expect((payload["iat"] as? NSNumber)?.int64Value == now)
            #expect((payload["auth_time"] as? NSNumber)?.int64Value == now)
            #expect((payload["exp"] as? NSNumber)?.int64Value == now + 3600)
            #expect(payload["iss"] as? String == "https://securetoken.google.com/hearth")
            #expect(payload["aud"] as? String == "hearth")
            let firebase = payload["firebase"] as? [String: Any]
            #expect(firebase?["sign_in_provider"] as? String == "password")
            #expect((firebase?["identities"] as? [String: [String]])?["email"] == ["ada@example.com"])
            // Passwords are stored only as scrypt hashes.
            let stored = try #require(store.account(uid: result.account.localId))
            #expect(stored.password?.algorithm == "scrypt")
            #expect(stored.password?.key.contains("secret1") == false)
        }
    }

    struct Refusal: Sendable, CustomStringConvertible {
        var id: String
        var email: String?
        var password: String?
        var code: AccountsError.Code
        var description: String { id }
    }

    static let signUpRefusals = [
        Refusal(id: "missing email", email: nil, password: "secret1", code: .missingEmail),
        Refusal(id: "empty email", email: "", password: "secret1", code: .missingEmail),
        Refusal(id: "missing password", email: "a@b.co", password: nil, code: .missingPassword),
        Refusal(id: "invalid email", email: "not-an-email", password: "secret1", code: .invalidEmail),
        Refusal(id: "weak password", email: "a@b.co", password: "12345", code: .weakPassword),
        Refusal(id: "taken email, other case", email: "TAKEN@b.co", password: "secret1", code: .emailExists),
    ]

    @Test(arguments: signUpRefusals)
    func signUpRefuses(_ refusal: Refusal) async throws {
        try await TemporaryAccounts.with { store, _ in
            _ = try await store.signUp(email: "taken@b.co", password: "secret1")
            await expectAccountsError(refusal.code) {
                try await store.signUp(email: refusal.email, password: refusal.password)
            }
        }
    }

    @Test func weakPasswordSaysWhatIsAccepted() async throws {
        try await TemporaryAccounts.with { store, _ in
            do {
                _ = try await store.signUp(email: "a@b.co", password: "12345")
                Issue.record("accepted a 5-character password")
            } catch let error as AccountsError {
                #expect(error.message == "WEAK_PASSWORD : Password should be at least 6 characters")
            }
        }
    }

    @Test func signUpWithoutEmailAndPasswordIsAnonymous() async throws {
        try await TemporaryAccounts.with { store, _ in
            let result = try await store.signUp(email: nil, password: nil)
            #expect(result.account.email == nil)
            #expect(result.account.provider == "anonymous")
            let payload = claims(of: result.idToken)
            #expect((payload["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "anonymous")
            #expect(payload["provider_id"] as? String == "anonymous")
        }
    }

    @Test func signInWithTheRightPassword() async throws {
        try await TemporaryAccounts.with { store, temporary in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            temporary.clock.advance(100)
            let result = try await store.signIn(email: "ADA@example.com", password: "secret1")
            #expect(result.account.localId == created.account.localId)
            #expect(result.refreshToken != created.refreshToken)
            #expect((claims(of: result.idToken)["auth_time"] as? NSNumber)?.int64Value == Int64(temporary.clock.now))
            #expect(store.account(uid: created.account.localId)?.lastLoginAt == Int64(temporary.clock.now * 1000))
        }
    }

    @Test func wrongEmailAndWrongPasswordLookTheSameUnderEnumerationProtection() async throws {
        try await TemporaryAccounts.with { store, _ in
            _ = try await store.signUp(email: "ada@example.com", password: "secret1")
            await expectAccountsError(.invalidLoginCredentials) {
                try await store.signIn(email: "ada@example.com", password: "wrong-password")
            }
            await expectAccountsError(.invalidLoginCredentials) {
                try await store.signIn(email: "nobody@example.com", password: "secret1")
            }
        }
    }

    @Test func withoutProtectionTheEmulatorsCodesAreUsed() async throws {
        try await TemporaryAccounts.with(configure: { $0.emailEnumerationProtection = false }) { store, _ in
            _ = try await store.signUp(email: "ada@example.com", password: "secret1")
            await expectAccountsError(.invalidPassword) {
                try await store.signIn(email: "ada@example.com", password: "wrong-password")
            }
            await expectAccountsError(.emailNotFound) {
                try await store.signIn(email: "nobody@example.com", password: "secret1")
            }
        }
    }

    @Test func signInRefusesMissingAndMalformedFields() async throws {
        try await TemporaryAccounts.with { store, _ in
            await expectAccountsError(.missingEmail) { try await store.signIn(email: nil, password: "x") }
            await expectAccountsError(.invalidEmail) { try await store.signIn(email: "nope", password: "x") }
            await expectAccountsError(.missingPassword) { try await store.signIn(email: "a@b.co", password: nil) }
            await expectAccountsError(.missingPassword) { try await store.signIn(email: "a@b.co", password: "") }
        }
    }

    @Test func anAcknowledgedSignUpSurvivesReopening() async throws {
        try await TemporaryAccounts.with { store, temporary in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            store.close()
            let reopened = try temporary.open()
            defer { reopened.close() }
            #expect(reopened.account(email: "ada@example.com")?.localId == created.account.localId)
            _ = try await reopened.signIn(email: "ada@example.com", password: "secret1")
            #expect(try reopened.refresh(created.refreshToken).account.localId == created.account.localId)
        }
    }

    @Test func refreshKeepsTheRefreshTokenAndTheSignInTime() async throws {
        try await TemporaryAccounts.with { store, temporary in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            let signedInAt = Int64(temporary.clock.now)
            temporary.clock.advance(3000)
            let refreshed = try store.refresh(created.refreshToken)
            #expect(refreshed.refreshToken == created.refreshToken)
            let payload = claims(of: refreshed.idToken)
            #expect((payload["auth_time"] as? NSNumber)?.int64Value == signedInAt)
            #expect((payload["iat"] as? NSNumber)?.int64Value == Int64(temporary.clock.now))
            await expectAccountsError(.invalidRefreshToken) { try store.refresh("not-a-token") }
            await expectAccountsError(.missingRefreshToken) { try store.refresh(nil) }
        }
    }

    @Test func expiredIDTokensAreRefused() async throws {
        try await TemporaryAccounts.with { store, temporary in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            #expect(try store.lookup(idToken: created.idToken).email == "ada@example.com")
            temporary.clock.advance(3601)
            await expectAccountsError(.tokenExpired) { try store.lookup(idToken: created.idToken) }
            await expectAccountsError(.invalidIDToken) { try store.lookup(idToken: "a.b.c") }
            await expectAccountsError(.missingIDToken) { try store.lookup(idToken: nil) }
        }
    }
}
