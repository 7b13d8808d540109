extension AccountsStore {
    /// Every account, ordered by creation time.
    public func allAccounts() -> [AccountRecord] {
        database.allAccounts().sorted { ($0.createdAt, $0.localId) < ($1.createdAt, $1.localId) }
    }

    /// The account with `uid`, if any.
    public func account(uid: String) -> AccountRecord? { database.account(uid: uid) }

    /// Whether `uid` has an account that is not disabled (cheaper than `account(uid:)`: the
    /// record is not decoded).
    public func isActive(uid: String) -> Bool { database.isActive(uid: uid) }

    /// The account with `email` (normalised first), if any.
    public func account(email: String) -> AccountRecord? {
        EmailAddress.normalize(email).flatMap(database.account(email:))
    }

    /// An admin-created email/password account; no tokens are issued.
    /// - Throws: `INVALID_EMAIL`, `EMAIL_EXISTS`, `WEAK_PASSWORD`, `MISSING_PASSWORD`.
    public func createAccount(
        email rawEmail: String,
        password: String,
        displayName: String? = nil
    )
        async throws(AccountsError) -> AccountRecord
    {
        let email = try Self.email(rawEmail)
        guard !password.isEmpty else { throw AccountsError(.missingPassword) }
        if database.uid(email: email) != nil { throw AccountsError(.emailExists) }
        try checkStrength(password)
        let created = try await create(email: email, password: password, displayName: displayName, provider: "password")
        return created.account
    }

    /// Disables (revoking every token) or enables `uid`.
    public func setDisabled(uid: String, _ disabled: Bool) async throws(AccountsError) -> AccountRecord {
        try await update(uid: uid, changes: AccountChanges(disabled: disabled))
    }

    /// Sets `uid`'s password, revoking earlier tokens.
    public func setPassword(uid: String, _ password: String) async throws(AccountsError) -> AccountRecord {
        guard !password.isEmpty else { throw AccountsError(.missingPassword) }
        return try await update(uid: uid, changes: AccountChanges(password: password))
    }
}
