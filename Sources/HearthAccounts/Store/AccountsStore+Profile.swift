extension AccountsStore {
    /// `accounts:lookup`: the account of a valid ID token.
    public func lookup(idToken: String?) throws(AccountsError) -> AccountRecord {
        try authenticate(idToken).0
    }

    /// `accounts:update` by the account's owner. Changing the email or password revokes
    /// earlier tokens and signs in again: the result then carries new tokens.
    /// - Throws: the `authenticate` errors, `INVALID_EMAIL`, `EMAIL_EXISTS`, `WEAK_PASSWORD`,
    ///   `OPERATION_NOT_ALLOWED` for admin-only fields.
    public func update(
        idToken: String?,
        changes: AccountChanges
    ) async throws(AccountsError)
        -> (account: AccountRecord, tokens: SignInResult?)
    {
        let (account, claims) = try authenticate(idToken)
        if changes.disabled != nil || changes.emailVerified != nil { throw AccountsError(.operationNotAllowed) }
        if changes.customAttributes != nil {
            throw AccountsError(.operationNotAllowed, "customAttributes can be set only with the admin credential")
        }
        let provider = changes.password != nil ? "password" : claims.provider ?? "password"
        return try await apply(changes, to: account.localId, signInAs: provider)
    }

    /// An admin's update of `uid` (CLI, or `accounts:update` with the admin credential).
    public func update(uid: String, changes: AccountChanges) async throws(AccountsError) -> AccountRecord {
        guard database.account(uid: uid) != nil else { throw AccountsError(.userNotFound) }
        return try await apply(changes, to: uid, signInAs: nil).account
    }

    /// Validates and commits `changes`; with `signInAs`, issues new tokens when earlier ones
    /// were revoked.
    func apply(
        _ changes: AccountChanges,
        to uid: String,
        signInAs provider: String?
    ) async throws(AccountsError)
        -> (account: AccountRecord, tokens: SignInResult?)
    {
        let unknown = changes.deleteAttributes.subtracting(AccountChanges.knownAttributes)
        if let first = unknown.sorted().first {
            throw AccountsError(.invalidArgument, "Unknown deleteAttribute '\(first)'")
        }
        let newEmail = try changes.email.map { raw throws(AccountsError) in
            guard let email = EmailAddress.normalize(raw) else { throw AccountsError(.invalidEmail) }
            return email
        }
        if let password = changes.password { try checkStrength(password) }
        let claims = try changes.customAttributes.map { text throws(AccountsError) in try CustomClaims.validated(text) }
        let hash: PasswordHash? = if let password = changes.password { try await hasher.hash(password) } else { nil }
        let now = nowMillis
        let (updated, reason, tokens) = try await database.write {
            [self] (batch) throws(AccountsError) -> (AccountRecord, RevocationReason?, SignInResult?) in
            guard var account = database.account(uid: uid) else { throw AccountsError(.userNotFound) }
            let before = account
            var reason: RevocationReason?
            if changes.deleteAttributes.contains("EMAIL"), let old = account.email {
                batch.delete(AccountsDatabase.emailKey(old))
                account.email = nil
                account.emailVerified = false
                reason = .emailChanged
            }
            if let newEmail, newEmail != before.email {
                if database.uid(email: newEmail) != nil { throw AccountsError(.emailExists) }
                if let old = account.email { batch.delete(AccountsDatabase.emailKey(old)) }
                batch.put(AccountsDatabase.emailKey(newEmail), text: uid)
                account.email = newEmail
                account.emailVerified = false
                reason = .emailChanged
            }
            if changes.deleteAttributes.contains("PASSWORD"), account.password != nil {
                account.password = nil
                reason = .passwordChanged
            }
            if let hash {
                account.password = hash
                account.passwordUpdatedAt = now
                reason = .passwordChanged
            }
            if changes.deleteAttributes.contains("DISPLAY_NAME") { account.displayName = nil }
            if changes.deleteAttributes.contains("PHOTO_URL") { account.photoUrl = nil }
            if let name = changes.displayName { account.displayName = name.isEmpty ? nil : name }
            if let photo = changes.photoUrl { account.photoUrl = photo.isEmpty ? nil : photo }
            if let verified = changes.emailVerified { account.emailVerified = verified }
            if let claims { account.customAttributes = claims }
            if let disabled = changes.disabled, disabled != account.disabled {
                account.disabled = disabled
                if disabled { reason = .disabled }
            }
            if reason != nil { account.validSince = max(account.validSince, now / 1000 + 1) }
            try batch.put(AccountsDatabase.accountKey(uid), account)
            var tokens: SignInResult?
            if reason != nil, !account.disabled, let provider {
                tokens = try issue(account, provider: provider, authTime: account.validSince, into: &batch)
            }
            if reason != nil || changes.disabled == false {
                // The owner got new tokens: give its live connections time to switch to them.
                let grace = reason != nil && tokens != nil ? configuration.liveSessionGrace : .zero
                updateRevocation(of: account, liveGrace: grace, in: &batch)
            }
            return (account, reason, tokens)
        }
        if let reason { revoked(updated, reason: reason) }
        return (updated, tokens)
    }

    /// `accounts:delete` by the account's owner.
    public func delete(idToken: String?) async throws(AccountsError) {
        let (account, _) = try authenticate(idToken)
        try await deleteAccount(uid: account.localId)
    }

    /// Deletes `uid`: its account, email, refresh tokens and reset codes' account; a
    /// tombstone keeps its earlier ID tokens revoked.
    public func deleteAccount(uid: String) async throws(AccountsError) {
        let digests = database.refreshDigests(uid: uid)
        let deletedAt = wholeSeconds + 1
        let account = try await database.write { [self] (batch) throws(AccountsError) -> AccountRecord in
            guard let account = database.account(uid: uid) else { throw AccountsError(.userNotFound) }
            batch.delete(AccountsDatabase.accountKey(uid))
            if let email = account.email { batch.delete(AccountsDatabase.emailKey(email)) }
            for digest in digests {
                batch.delete(AccountsDatabase.refreshKey(digest))
                batch.delete(AccountsDatabase.userRefreshKey(uid, digest))
            }
            try batch.put(AccountsDatabase.tombstoneKey(uid), Tombstone(deletedAt: deletedAt))
            batch.onCommit { [revocations] in
                revocations.set(uid, .init(validSince: deletedAt, disabled: false, deleted: true))
            }
            return account
        }
        revocations.publish(Revocation(uid: uid, validSince: deletedAt, reason: .deleted))
        logger.info("account deleted", metadata: ["hearth.uid": "\(account.localId)"])
    }
}
