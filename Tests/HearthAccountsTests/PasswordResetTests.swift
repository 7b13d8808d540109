import Foundation
import Testing

@testable import HearthAccounts

struct PasswordResetTests {
    /// The outbox's messages.
    static func outbox(_ store: AccountsStore) throws -> [[String: Any]] {
        guard FileManager.default.fileExists(atPath: store.outboxPath) else { return [] }
        return try String(contentsOfFile: store.outboxPath, encoding: .utf8)
            .split(separator: "\n")
            .map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    @Test func aResetCodeIsWrittenToTheOutboxAndWorksOnce() async throws {
        try await TemporaryAccounts.with { store, _ in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            let email = try await store.sendPasswordReset(email: "ADA@example.com", linkBase: "http://127.0.0.1:9000")
            #expect(email == "ada@example.com")
            let messages = try Self.outbox(store)
            #expect(messages.count == 1)
            let message = try #require(messages.first)
            let code = try #require(message["oobCode"] as? String)
            #expect(message["type"] as? String == "PASSWORD_RESET")
            #expect(message["uid"] as? String == created.account.localId)
            #expect(
                (message["link"] as? String)?.hasPrefix(
                    "http://127.0.0.1:9000/__/auth/action?mode=resetPassword&oobCode="
                ) == true
            )
            let attributes = try FileManager.default.attributesOfItem(atPath: store.outboxPath)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

            #expect(try await store.resetPassword(code: code, newPassword: nil) == "ada@example.com")
            await expectAccountsError(.weakPassword) { try await store.resetPassword(code: code, newPassword: "123") }
            #expect(try await store.resetPassword(code: code, newPassword: "brand-new") == "ada@example.com")
            await expectAccountsError(.invalidOOBCode) {
                try await store.resetPassword(code: code, newPassword: "again1")
            }
            await expectAccountsError(.tokenExpired) { try store.lookup(idToken: created.idToken) }
            let signedIn = try await store.signIn(email: "ada@example.com", password: "brand-new")
            #expect(signedIn.account.emailVerified)
        }
    }

    @Test func afterAResetTheOldRefreshTokenIsRefusedAndANewSignInRefreshes() async throws {
        try await TemporaryAccounts.with { store, _ in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            _ = try await store.sendPasswordReset(email: "ada@example.com", linkBase: "http://h")
            let code = try #require(try Self.outbox(store).first?["oobCode"] as? String)
            #expect(try await store.resetPassword(code: code, newPassword: "brand-new") == "ada@example.com")
            // All in the same second of the test clock: the reset's revocation covers the old
            // session, not the one signed in after it.
            await expectAccountsError(.tokenExpired) { try store.refresh(created.refreshToken) }
            let signedIn = try await store.signIn(email: "ada@example.com", password: "brand-new")
            let refreshed = try store.refresh(signedIn.refreshToken)
            #expect(refreshed.refreshToken == signedIn.refreshToken)
            #expect(try store.lookup(idToken: refreshed.idToken).localId == created.account.localId)
        }
    }

    @Test func codesExpireAfterAnHour() async throws {
        try await TemporaryAccounts.with { store, temporary in
            _ = try await store.signUp(email: "ada@example.com", password: "secret1")
            _ = try await store.sendPasswordReset(email: "ada@example.com", linkBase: "http://h")
            let code = try #require(try Self.outbox(store).first?["oobCode"] as? String)
            temporary.clock.advance(3601)
            await expectAccountsError(.expiredOOBCode) {
                try await store.resetPassword(code: code, newPassword: "brand-new")
            }
            await expectAccountsError(.invalidOOBCode) {
                try await store.resetPassword(code: code, newPassword: "brand-new")
            }
            await expectAccountsError(.missingOOBCode) {
                try await store.resetPassword(code: nil, newPassword: "brand-new")
            }
        }
    }

    @Test func unknownEmailsAreNotRevealed() async throws {
        try await TemporaryAccounts.with { store, _ in
            let echoed = try await store.sendPasswordReset(email: "nobody@example.com", linkBase: "http://h")
            #expect(echoed == "nobody@example.com")
            let messages = try Self.outbox(store)
            #expect(messages.isEmpty)
            await expectAccountsError(.invalidEmail) {
                try await store.sendPasswordReset(email: "nope", linkBase: "http://h")
            }
            await expectAccountsError(.missingEmail) {
                try await store.sendPasswordReset(email: nil, linkBase: "http://h")
            }
        }
        try await TemporaryAccounts.with(configure: { $0.emailEnumerationProtection = false }) { store, _ in
            await expectAccountsError(.emailNotFound) {
                try await store.sendPasswordReset(email: "nobody@example.com", linkBase: "http://h")
            }
        }
    }
}
