extension AccountsStore {
    /// `accounts:signUp`: a new email/password account, or an anonymous one when neither
    /// email nor password is given; signed in.
    /// - Throws: `MISSING_EMAIL`, `MISSING_PASSWORD`, `INVALID_EMAIL`, `EMAIL_EXISTS`,
    ///   `WEAK_PASSWORD`.
    public func signUp(
        email rawEmail: String?,
        password: String?,
        displayName: String? = nil
    )
        async throws(AccountsError) -> SignInResult
    {
        _ = try requireSigner()
        if rawEmail == nil && (password ?? "").isEmpty {
            return try await create(email: nil, password: nil, displayName: nil, provider: "anonymous")
        }
        guard let rawEmail, !rawEmail.isEmpty else { throw AccountsError(.missingEmail) }
        guard let password, !password.isEmpty else { throw AccountsError(.missingPassword) }
        let email = try Self.email(rawEmail)
        if database.uid(email: email) != nil { throw AccountsError(.emailExists) }
        try checkStrength(password)
        return try await create(email: email, password: password, displayName: displayName, provider: "password")
    }

    /// Creates an account (and, with a JWT secret, its first tokens).
    func create(
        email: String?,
        password: String?,
        displayName: String?,
        provider: String
    )
        async throws(AccountsError) -> SignInResult
    {
        let hash: PasswordHash? = if let password { try await hasher.hash(password) } else { nil }
        let now = nowMillis
        let seconds = now / 1000
        let account = AccountRecord(
            localId: Secrets.randomUID(),
            email: email,
            emailVerified: false,
            displayName: displayName.flatMap { $0.isEmpty ? nil : $0 },
            photoUrl: nil,
            password: hash,
            passwordUpdatedAt: hash == nil ? nil : now,
            validSince: seconds,
            disabled: false,
            createdAt: now,
            lastLoginAt: now,
            lastRefreshAt: nil
        )
        let withTokens = signer != nil
        let result = try await database.write { [self] (changes) throws(AccountsError) -> SignInResult in
            if let email {
                if database.uid(email: email) != nil { throw AccountsError(.emailExists) }
                changes.put(AccountsDatabase.emailKey(email), text: account.localId)
            }
            try changes.put(AccountsDatabase.accountKey(account.localId), account)
            guard withTokens else { return SignInResult(account: account, idToken: "", refreshToken: "", expiresIn: 0) }
            return try issue(account, provider: provider, authTime: seconds, into: &changes)
        }
        logger.info(
            "account created",
            metadata: ["hearth.uid": "\(account.localId)", "hearth.provider": "\(provider)"]
        )
        return result
    }

    /// `accounts:signInWithPassword`. Failures count against the email and the client
    /// address; past the limits, `TOO_MANY_ATTEMPTS_TRY_LATER` is answered before any hashing.
    /// - Throws: `MISSING_EMAIL`, `INVALID_EMAIL`, `MISSING_PASSWORD`,
    ///   `INVALID_LOGIN_CREDENTIALS` (or `EMAIL_NOT_FOUND` / `INVALID_PASSWORD` without
    ///   enumeration protection), `USER_DISABLED`, `TOO_MANY_ATTEMPTS_TRY_LATER`.
    public func signIn(
        email rawEmail: String?,
        password: String?,
        clientAddress: String? = nil
    )
        async throws(AccountsError) -> SignInResult
    {
        _ = try requireSigner()
        guard let rawEmail else { throw AccountsError(.missingEmail) }
        guard let email = EmailAddress.normalize(rawEmail) else { throw AccountsError(.invalidEmail) }
        guard let password, !password.isEmpty else { throw AccountsError(.missingPassword) }
        // One address failing for an account locks only that address out of it: the owner,
        // elsewhere, is slowed down at most (`failureDelayStep`), never locked out.
        let everywhereKey = "email:" + email
        let accountKey = everywhereKey + "\u{0}" + (clientAddress ?? "-")
        let addressKey = clientAddress.map { "address:" + $0 }
        let started = nowSeconds
        let excess = accountFailuresEverywhere.failures(everywhereKey, now: started) - configuration.failuresPerAccount
        if excess >= 0 {
            await configuration.delay(
                min(configuration.maxFailureDelay, Double(excess + 1) * configuration.failureDelayStep)
            )
        }
        if accountFailures.isBlocked(accountKey, now: started)
            || addressKey.map({ addressFailures.isBlocked($0, now: started) }) == true
        {
            logger.notice("sign-in refused: too many failures", metadata: ["hearth.client": "\(clientAddress ?? "-")"])
            throw AccountsError(
                .tooManyAttempts,
                "Access to this account has been temporarily disabled due to many failed login attempts. Try again later."
            )
        }
        let found = database.account(email: email)
        let matches = try await hasher.verify(password, against: found?.password)
        guard matches, let account = found else {
            let now = nowSeconds
            accountFailures.recordFailure(accountKey, now: now)
            accountFailuresEverywhere.recordFailure(everywhereKey, now: now)
            if let addressKey { addressFailures.recordFailure(addressKey, now: now) }
            if configuration.emailEnumerationProtection { throw AccountsError(.invalidLoginCredentials) }
            throw AccountsError(found == nil ? .emailNotFound : .invalidPassword)
        }
        if account.disabled { throw AccountsError(.userDisabled) }
        accountFailures.reset(accountKey)
        accountFailuresEverywhere.reset(everywhereKey)
        let now = nowMillis
        let authTime = max(now / 1000, account.validSince)
        return try await database.write(sync: false) { [self] (changes) throws(AccountsError) -> SignInResult in
            guard var current = database.account(uid: account.localId), current.password == account.password else {
                throw AccountsError(
                    configuration.emailEnumerationProtection ? .invalidLoginCredentials : .invalidPassword
                )
            }
            if current.disabled { throw AccountsError(.userDisabled) }
            current.lastLoginAt = now
            try changes.put(AccountsDatabase.accountKey(current.localId), current)
            return try issue(current, provider: "password", authTime: authTime, into: &changes)
        }
    }

    /// `securetoken.googleapis.com/v1/token`: a fresh ID token for a refresh token (which
    /// stays the same, as Firebase's does).
    /// - Throws: `MISSING_REFRESH_TOKEN`, `INVALID_REFRESH_TOKEN`, `USER_NOT_FOUND`,
    ///   `USER_DISABLED`, `TOKEN_EXPIRED` (revoked since).
    public func refresh(_ refreshToken: String?) throws(AccountsError) -> SignInResult {
        let signer = try requireSigner()
        guard let refreshToken, !refreshToken.isEmpty else { throw AccountsError(.missingRefreshToken) }
        guard let record = database.refreshRecord(digest: Secrets.digestHex(refreshToken)) else {
            throw AccountsError(.invalidRefreshToken)
        }
        guard let account = database.account(uid: record.uid) else { throw AccountsError(.userNotFound) }
        if account.disabled { throw AccountsError(.userDisabled) }
        if record.authTime < account.validSince { throw AccountsError(.tokenExpired) }
        let idToken = signer.token(
            for: account,
            provider: record.provider,
            authTime: record.authTime,
            issuedAt: max(wholeSeconds, record.authTime)
        )
        return SignInResult(
            account: account,
            idToken: idToken,
            refreshToken: refreshToken,
            expiresIn: configuration.idTokenLifetime
        )
    }
}
