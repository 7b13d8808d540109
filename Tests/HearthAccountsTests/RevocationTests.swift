import Foundation
import Synchronization
import Testing

@testable import HearthAccounts

struct RevocationTests {
    @Test func changingThePasswordRevokesEarlierTokensAndIssuesNewOnes() async throws {
        try await TemporaryAccounts.with { store, temporary in
            let seen = Mutex<[Revocation]>([])
            store.onRevoke { revocation in seen.withLock { $0.append(revocation) } }
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            let uid = created.account.localId
            let (_, tokens) = try await store.update(
                idToken: created.idToken,
                changes: AccountChanges(password: "secret2")
            )
            let fresh = try #require(tokens)
            // Same second: the old token is still revoked, the new one is good.
            await expectAccountsError(.tokenExpired) { try store.lookup(idToken: created.idToken) }
            await expectAccountsError(.tokenExpired) { try store.refresh(created.refreshToken) }
            #expect(try store.lookup(idToken: fresh.idToken).localId == uid)
            #expect(try store.refresh(fresh.refreshToken).account.localId == uid)
            let oldAuthTime = (claims(of: created.idToken)["auth_time"] as? NSNumber)!.int64Value
            let newAuthTime = (claims(of: fresh.idToken)["auth_time"] as? NSNumber)!.int64Value
            #expect(store.revocations.status(uid: uid, authTime: oldAuthTime) == .revoked)
            #expect(store.revocations.status(uid: uid, authTime: newAuthTime) == .valid)
            #expect(seen.withLock { $0 } == [Revocation(uid: uid, validSince: newAuthTime, reason: .passwordChanged)])
            await expectAccountsError(.invalidLoginCredentials) {
                try await store.signIn(email: "ada@example.com", password: "secret1")
            }
            _ = try await store.signIn(email: "ada@example.com", password: "secret2")
            _ = temporary
        }
    }

    @Test func profileChangesDoNotRevoke() async throws {
        try await TemporaryAccounts.with { store, _ in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            let (account, tokens) = try await store.update(
                idToken: created.idToken,
                changes: AccountChanges(displayName: "Ada", photoUrl: "https://example.com/a.png")
            )
            #expect(tokens == nil)
            #expect(account.displayName == "Ada")
            #expect(account.photoUrl == "https://example.com/a.png")
            let (cleared, _) = try await store.update(
                idToken: created.idToken,
                changes: AccountChanges(deleteAttributes: ["DISPLAY_NAME", "PHOTO_URL"])
            )
            #expect(cleared.displayName == nil && cleared.photoUrl == nil)
            #expect(try store.lookup(idToken: created.idToken).localId == account.localId)
        }
    }

    @Test func changingTheEmailMovesTheLoginAndRevokes() async throws {
        try await TemporaryAccounts.with { store, _ in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            _ = try await store.signUp(email: "taken@example.com", password: "secret1")
            await expectAccountsError(.emailExists) {
                try await store.update(idToken: created.idToken, changes: AccountChanges(email: "Taken@example.com"))
            }
            await expectAccountsError(.invalidEmail) {
                try await store.update(idToken: created.idToken, changes: AccountChanges(email: "nope"))
            }
            let (account, tokens) = try await store.update(
                idToken: created.idToken,
                changes: AccountChanges(email: "Lovelace@example.com")
            )
            #expect(account.email == "lovelace@example.com")
            #expect(tokens != nil)
            #expect(store.account(email: "ada@example.com") == nil)
            _ = try await store.signIn(email: "lovelace@example.com", password: "secret1")
            await expectAccountsError(.tokenExpired) { try store.lookup(idToken: created.idToken) }
        }
    }

    @Test func disablingRevokesEverythingAndEnablingKeepsOldTokensRevoked() async throws {
        try await TemporaryAccounts.with { store, temporary in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            let uid = created.account.localId
            #expect(store.isActive(uid: uid))
            _ = try await store.setDisabled(uid: uid, true)
            #expect(!store.isActive(uid: uid))
            #expect(!store.isActive(uid: "nobody"))
            #expect(store.revocations.status(uid: uid, authTime: Int64(temporary.clock.now) + 10) == .disabled)
            await expectAccountsError(.userDisabled) { try store.lookup(idToken: created.idToken) }
            await expectAccountsError(.userDisabled) { try store.refresh(created.refreshToken) }
            await expectAccountsError(.userDisabled) {
                try await store.signIn(email: "ada@example.com", password: "secret1")
            }
            temporary.clock.advance(5)
            _ = try await store.setDisabled(uid: uid, false)
            #expect(store.isActive(uid: uid))
            await expectAccountsError(.tokenExpired) { try store.lookup(idToken: created.idToken) }
            let again = try await store.signIn(email: "ada@example.com", password: "secret1")
            #expect(try store.lookup(idToken: again.idToken).localId == uid)
            // Admin-only fields are refused to the user.
            await expectAccountsError(.operationNotAllowed) {
                try await store.update(idToken: again.idToken, changes: AccountChanges(disabled: false))
            }
        }
    }

    @Test func deletionIsRememberedAcrossReopening() async throws {
        try await TemporaryAccounts.with { store, temporary in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            let uid = created.account.localId
            try await store.delete(idToken: created.idToken)
            #expect(store.account(uid: uid) == nil)
            await expectAccountsError(.userNotFound) { try store.lookup(idToken: created.idToken) }
            await expectAccountsError(.invalidRefreshToken) { try store.refresh(created.refreshToken) }
            await expectAccountsError(.userNotFound) { try await store.deleteAccount(uid: uid) }
            store.close()
            let reopened = try temporary.open()
            defer { reopened.close() }
            #expect(reopened.revocations.status(uid: uid, authTime: Int64(temporary.clock.now) + 100) == .deleted)
            #expect(reopened.revocations.status(uid: "someone-else", authTime: 0) == .valid)
            // The email is free again.
            _ = try await reopened.signUp(email: "ada@example.com", password: "secret1")
        }
    }

    @Test func revocationsSurviveReopening() async throws {
        try await TemporaryAccounts.with { store, temporary in
            let created = try await store.signUp(email: "ada@example.com", password: "secret1")
            let uid = created.account.localId
            _ = try await store.setPassword(uid: uid, "secret2")
            store.close()
            let reopened = try temporary.open()
            defer { reopened.close() }
            #expect(reopened.revocations.status(uid: uid, authTime: Int64(temporary.clock.now)) == .revoked)
        }
    }
}
