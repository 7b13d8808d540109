/// A refusal or failure of an accounts operation, named by Firebase Auth's error code
/// (`EMAIL_EXISTS`, `WEAK_PASSWORD : Password should be at least 6 characters`, ...).
public struct AccountsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Firebase Auth's error code, e.g. `EMAIL_EXISTS`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let emailExists = Code("EMAIL_EXISTS")
        public static let emailNotFound = Code("EMAIL_NOT_FOUND")
        public static let invalidPassword = Code("INVALID_PASSWORD")
        public static let invalidLoginCredentials = Code("INVALID_LOGIN_CREDENTIALS")
        public static let weakPassword = Code("WEAK_PASSWORD")
        public static let invalidEmail = Code("INVALID_EMAIL")
        public static let missingEmail = Code("MISSING_EMAIL")
        public static let missingPassword = Code("MISSING_PASSWORD")
        public static let userDisabled = Code("USER_DISABLED")
        public static let userNotFound = Code("USER_NOT_FOUND")
        public static let tokenExpired = Code("TOKEN_EXPIRED")
        public static let invalidIDToken = Code("INVALID_ID_TOKEN")
        public static let missingIDToken = Code("MISSING_ID_TOKEN")
        public static let tooManyAttempts = Code("TOO_MANY_ATTEMPTS_TRY_LATER")
        public static let invalidRefreshToken = Code("INVALID_REFRESH_TOKEN")
        public static let missingRefreshToken = Code("MISSING_REFRESH_TOKEN")
        public static let missingGrantType = Code("MISSING_GRANT_TYPE")
        public static let invalidGrantType = Code("INVALID_GRANT_TYPE")
        public static let invalidOOBCode = Code("INVALID_OOB_CODE")
        public static let expiredOOBCode = Code("EXPIRED_OOB_CODE")
        public static let missingOOBCode = Code("MISSING_OOB_CODE")
        public static let missingRequestType = Code("MISSING_REQ_TYPE")
        public static let invalidRequestType = Code("INVALID_REQ_TYPE")
        public static let missingLocalID = Code("MISSING_LOCAL_ID")
        public static let operationNotAllowed = Code("OPERATION_NOT_ALLOWED")
        public static let invalidArgument = Code("INVALID_ARGUMENT")
        /// Custom claims (`customAttributes`) over 1,000 bytes.
        public static let claimsTooLarge = Code("CLAIMS_TOO_LARGE")
        /// Custom claims that are not a JSON object.
        public static let invalidClaims = Code("INVALID_CLAIMS")
        /// A custom claim with a reserved name (`FORBIDDEN_CLAIM : iss`).
        public static let forbiddenClaim = Code("FORBIDDEN_CLAIM")
        /// An admin operation (`accounts:batchGet`) without the admin credential: a 403.
        public static let insufficientPermission = Code("INSUFFICIENT_PERMISSION")
        /// Not a Firebase code: the store failed (I/O); answered as a 500.
        public static let internalError = Code("INTERNAL_ERROR")
        /// Not a Firebase code (Google APIs' status): in a cluster, the accounts' log in
        /// PostgreSQL did not answer; answered as a 503, to retry.
        public static let unavailable = Code("UNAVAILABLE")
        /// Not a Firebase code: another process (a running server) holds the accounts database;
        /// only opening the accounts fails so.
        public static let databaseInUse = Code("DATABASE_IN_USE")
    }

    public let code: Code
    /// Firebase's text after the code (`Password should be at least 6 characters`), if any.
    public let detail: String?

    public init(_ code: Code, _ detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// The wire message: `CODE` or `CODE : detail`.
    public var message: String { detail.map { "\(code.rawValue) : \($0)" } ?? code.rawValue }
    public var description: String { message }

    static func weakPassword(minimum: Int) -> AccountsError {
        AccountsError(.weakPassword, "Password should be at least \(minimum) characters")
    }

    /// The accounts endpoints' answer to a refused ID token, as Firebase Auth words it.
    init(refusing error: IDTokenError) {
        switch error {
        case .malformed: self.init(.invalidIDToken)
        case .expired, .revoked: self.init(.tokenExpired)
        case .disabled: self.init(.userDisabled)
        case .deleted: self.init(.userNotFound)
        }
    }

    static func storage(_ detail: String) -> AccountsError { AccountsError(.internalError, detail) }
}
