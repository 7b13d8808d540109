import Foundation

extension AccountsStore {
    /// `accounts:sendOobCode` with `PASSWORD_RESET`: a single-use code, valid for
    /// `resetCodeLifetime`, written with its link to the outbox (no mail server exists).
    /// - Parameters:
    ///   - linkBase: the server's origin, e.g. `http://127.0.0.1:9000`.
    /// - Returns: the normalised email (also for an unknown one under enumeration protection,
    ///   where nothing is written).
    /// - Throws: `MISSING_EMAIL`, `INVALID_EMAIL`, `EMAIL_NOT_FOUND` (without protection).
    public func sendPasswordReset(
        email rawEmail: String?,
        linkBase: String,
        apiKey: String? = nil,
        continueURL: String? = nil
    )
        async throws(AccountsError) -> String
    {
        let email = try Self.email(rawEmail)
        guard let account = database.account(email: email) else {
            if configuration.emailEnumerationProtection {
                logger.info("password reset requested for an unknown email: nothing sent")
                return email
            }
            throw AccountsError(.emailNotFound)
        }
        let code = Secrets.randomToken()
        let created = nowSeconds
        let expiresAt = Int64(created) + configuration.resetCodeLifetime
        let record = ResetCodeRecord(uid: account.localId, email: email, expiresAt: expiresAt)
        try await database.write { (batch) throws(AccountsError) in
            try batch.put(AccountsDatabase.resetKey(Secrets.digestHex(code)), record)
        }
        var link = URLComponents(string: linkBase + "/__/auth/action") ?? URLComponents()
        var items = [
            URLQueryItem(name: "mode", value: "resetPassword"),
            URLQueryItem(name: "oobCode", value: code),
            URLQueryItem(name: "apiKey", value: apiKey ?? "hearth"),
            URLQueryItem(name: "lang", value: "en"),
        ]
        if let continueURL { items.append(URLQueryItem(name: "continueUrl", value: continueURL)) }
        link.queryItems = items
        let iso = ISO8601DateFormatter()
        try outbox.append(
            ResetOutbox.Message(
                email: email,
                uid: account.localId,
                oobCode: code,
                link: link.string ?? "",
                createdAt: iso.string(from: Date(timeIntervalSince1970: created)),
                expiresAt: iso.string(from: Date(timeIntervalSince1970: Double(expiresAt)))
            )
        )
        logger.info(
            "password reset link written to the outbox",
            metadata: ["hearth.uid": "\(account.localId)", "hearth.outbox": "\(outbox.path)"]
        )
        return email
    }

    /// `accounts:resetPassword`: with `newPassword`, consumes the code, sets the password
    /// and revokes earlier tokens; without, only checks the code.
    /// - Returns: the account's email.
    /// - Throws: `MISSING_OOB_CODE`, `INVALID_OOB_CODE`, `EXPIRED_OOB_CODE`, `WEAK_PASSWORD`.
    public func resetPassword(code: String?, newPassword: String?) async throws(AccountsError) -> String {
        guard let code, !code.isEmpty else { throw AccountsError(.missingOOBCode) }
        let key = AccountsDatabase.resetKey(Secrets.digestHex(code))
        guard let record = database.resetRecord(digest: Secrets.digestHex(code)) else {
            throw AccountsError(.invalidOOBCode)
        }
        if Double(record.expiresAt) <= nowSeconds {
            try? await database.write { (batch) throws(AccountsError) in batch.delete(key) }
            throw AccountsError(.expiredOOBCode)
        }
        guard let newPassword else { return record.email }
        try checkStrength(newPassword)
        let hash = try await hasher.hash(newPassword)
        let now = nowMillis
        let account = try await database.write { [self] (batch) throws(AccountsError) -> AccountRecord in
            // Single use: a concurrent reset with the same code finds it gone.
            guard database.file.get(key) != nil else { throw AccountsError(.invalidOOBCode) }
            batch.delete(key)
            guard var account = database.account(uid: record.uid), account.email == record.email else {
                throw AccountsError(.invalidOOBCode)
            }
            account.password = hash
            account.passwordUpdatedAt = now
            account.emailVerified = true
            account.validSince = max(account.validSince, now / 1000 + 1)
            try batch.put(AccountsDatabase.accountKey(account.localId), account)
            updateRevocation(of: account, in: &batch)
            return account
        }
        revoked(account, reason: .passwordChanged)
        return record.email
    }
}
