import Crypto
import Foundation

/// The one check of Firebase-style ID tokens, for the database (REST, SSE, WebSocket) and the
/// accounts endpoints alike.
///
/// A signed token is a JWT signed HS256 with the JWT secret (compared in constant time);
/// `exp` required and in the future; `iat` required and at most `allowedClockSkew` ahead;
/// `nbf`, when present, at most `allowedClockSkew` ahead; `aud` and `iss`, when present, naming
/// this project (a token minted for another project with the same key is refused); a
/// `user_id` (else `sub`); and not revoked (`auth_time`, else `iat`, before the account's
/// `validSince`, or the account disabled or deleted: one in-memory lookup in `revocations`).
///
/// Under `--emulator` (`emulator`), as Firebase's emulators do, tokens of any project are
/// accepted, and so are unsigned ones (`alg: none`, whatever the header's other fields), the
/// SDKs' `mockUserToken`: only their uid is required. Their times are not checked (the SDK
/// sets `iat` to 0 unless the app gives one, so its default token "expired" in 1970) and they
/// never expire; the uid's account being disabled or deleted still refuses them. Never logs or
/// echoes the token.
public struct IDTokenVerifier: Sendable {
    /// Seconds an `iat` may lie in the future (clock skew between token issuer and server).
    public static let allowedClockSkew: Double = 300

    let key: SymmetricKey?
    /// Firebase-emulator conventions: unsigned tokens, and tokens of any project.
    let emulator: Bool
    /// The project tokens must name in `aud` (and `iss`) when they carry one; nil (or
    /// `emulator`): any.
    let projectID: String?
    let now: @Sendable () -> Double
    /// The accounts' revocation state; nil checks no revocation.
    public let revocations: RevocationRegistry?
    /// Signed tokens whose text passed every check, shared by this verifier's copies.
    let verified = VerifiedTokenCache()

    /// - Parameters:
    ///   - secret: the HS256 key; nil or empty refuses every signed token.
    ///   - emulator: accept unsigned (`alg: none`) tokens and any project's (`--emulator`).
    ///   - projectID: an `aud` or `iss` naming another project is refused (unless `emulator`).
    ///   - revocations: tokens it revokes are refused.
    ///   - now: seconds since 1970; by default the system clock.
    public init(
        secret: String?,
        emulator: Bool,
        projectID: String? = nil,
        revocations: RevocationRegistry? = nil,
        now: (@Sendable () -> Double)? = nil
    ) {
        self.key = secret.flatMap { $0.isEmpty ? nil : SymmetricKey(data: Array($0.utf8)) }
        self.emulator = emulator
        self.projectID = emulator ? nil : projectID
        self.revocations = revocations
        self.now = now ?? { Date().timeIntervalSince1970 }
    }

    /// The verified token.
    /// - Throws: `IDTokenError` saying why the token is refused.
    public func verify(_ token: String) throws(IDTokenError) -> VerifiedIDToken {
        if let known = verified.lookup(token) { return try check(known) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(parts[0]),
            let payloadBytes = Base64URL.decode(parts[1]),
            let header = Self.object(headerBytes),
            let algorithm = header["alg"] as? String
        else { throw .malformed }

        let payload: [String: Any]
        switch algorithm {
        case "HS256":
            guard let key, let signature = Base64URL.decode(parts[2]) else { throw .malformed }
            let message = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
            // swift-crypto compares the codes in constant time.
            guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: message, using: key),
                let claims = Self.object(payloadBytes)
            else { throw .malformed }
            payload = claims
        case "none" where emulator:
            guard parts[2].isEmpty, let claims = Self.object(payloadBytes) else { throw .malformed }
            return try verifiedUnsigned(claims, payloadBytes: payloadBytes)
        default:
            throw .malformed
        }

        guard let expiresAt = Self.number(payload["exp"]),
            let issuedAt = Self.number(payload["iat"]),
            let issuedAtSeconds = Self.wholeSeconds(issuedAt)
        else { throw .malformed }
        // `nbf` when sent: nil inside when it is not a number.
        let notBefore = payload["nbf"].map(Self.number)
        try Self.checkTimes(expiresAt: expiresAt, issuedAt: issuedAt, notBefore: notBefore ?? nil, at: now())
        if case .some(nil) = notBefore { throw .malformed }
        if let projectID, !Self.names(projectID, payload) { throw .malformed }
        let uid = try Self.uid(payload)
        var authTime = issuedAtSeconds
        if let claimed = Self.number(payload["auth_time"]) {
            guard let seconds = Self.wholeSeconds(claimed) else { throw .malformed }
            authTime = seconds
        }
        try checkRevocation(uid: uid, authTime: authTime)
        let verifiedToken = VerifiedIDToken(
            uid: uid,
            provider: Self.provider(payload),
            authTime: authTime,
            issuedAt: issuedAtSeconds,
            expiresAt: expiresAt,
            claimsJSON: payloadBytes
        )
        verified.remember(token, .init(token: verifiedToken, issuedAt: issuedAt, notBefore: notBefore ?? nil))
        return verifiedToken
    }

    /// A token whose text passed every check before: its times against the clock now, and its
    /// account's revocations, in the order a fresh check asks them.
    private func check(_ known: VerifiedTokenCache.Known) throws(IDTokenError) -> VerifiedIDToken {
        try Self.checkTimes(
            expiresAt: known.token.expiresAt,
            issuedAt: known.issuedAt,
            notBefore: known.notBefore,
            at: now()
        )
        try checkRevocation(uid: known.token.uid, authTime: known.token.authTime)
        return known.token
    }

    /// The token's times against the clock at `current`: `exp` passed is expired; `iat` or
    /// `nbf` more than `allowedClockSkew` ahead is malformed.
    private static func checkTimes(
        expiresAt: Double?,
        issuedAt: Double,
        notBefore: Double?,
        at current: Double
    ) throws(IDTokenError) {
        if let expiresAt, expiresAt <= current { throw .expired }
        if issuedAt > current + allowedClockSkew { throw .malformed }
        if let notBefore, notBefore > current + allowedClockSkew { throw .malformed }
    }

    /// An unsigned token under `--emulator`: its uid, and its account not disabled or deleted.
    private func verifiedUnsigned(
        _ payload: [String: Any],
        payloadBytes: [UInt8]
    ) throws(IDTokenError)
        -> VerifiedIDToken
    {
        let uid = try Self.uid(payload)
        try checkRevocation(uid: uid, authTime: nil)
        let issuedAt = Self.number(payload["iat"]).flatMap(Self.wholeSeconds) ?? 0
        return VerifiedIDToken(
            uid: uid,
            provider: Self.provider(payload),
            authTime: Self.number(payload["auth_time"]).flatMap(Self.wholeSeconds) ?? issuedAt,
            issuedAt: issuedAt,
            expiresAt: nil,
            claimsJSON: payloadBytes
        )
    }

    /// Refuses a token of a disabled or deleted account, or (given `authTime`) one signed in
    /// before the account's tokens were revoked.
    private func checkRevocation(uid: String, authTime: Int64?) throws(IDTokenError) {
        switch revocations?.status(uid: uid, authTime: authTime ?? .max) ?? .valid {
        case .valid: break
        case .revoked: throw .revoked
        case .disabled: throw .disabled
        case .deleted: throw .deleted
        }
    }

    private static func uid(_ payload: [String: Any]) throws(IDTokenError) -> String {
        let uid = (payload["user_id"] as? String) ?? (payload["sub"] as? String)
        guard let uid, !uid.isEmpty else { throw .malformed }
        return uid
    }

    private static func provider(_ payload: [String: Any]) -> String? {
        (payload["firebase"] as? [String: Any])?["sign_in_provider"] as? String
    }

    /// Whether the claims' `aud` (a string, or an array holding it) and `iss`, each when present,
    /// name `projectID`, as Firebase's own ID tokens do.
    private static func names(_ projectID: String, _ payload: [String: Any]) -> Bool {
        switch payload["aud"] {
        case nil: break
        case let audience as String where audience == projectID: break
        case let audiences as [Any] where audiences.contains(where: { $0 as? String == projectID }): break
        default: return false
        }
        guard let issuer = payload["iss"] else { return true }
        return issuer as? String == "https://securetoken.google.com/\(projectID)"
    }

    private static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    /// `seconds` as whole seconds; nil when an Int64 cannot hold them (`1e300`).
    private static func wholeSeconds(_ seconds: Double) -> Int64? {
        Int64(exactly: seconds.rounded(.towardZero))
    }

    private static func number(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        return number.doubleValue
    }
}

/// What a verified ID token says.
public struct VerifiedIDToken: Sendable, Equatable {
    /// `user_id`, else `sub`.
    public var uid: String
    /// `firebase.sign_in_provider`, when present.
    public var provider: String?
    /// `auth_time`, else `iat` (seconds): when the user signed in.
    public var authTime: Int64
    /// `iat` (seconds).
    public var issuedAt: Int64
    /// `exp` (seconds); nil for an unsigned token (`--emulator`), which never expires.
    public var expiresAt: Double?
    /// The payload JSON, verbatim: every claim.
    public var claimsJSON: [UInt8]

    /// When the user signed in, as revocations compare it (`authTime`); nil for an unsigned
    /// token (`--emulator`), whose times are not checked: only disabling or deleting its account
    /// ends it.
    public var signedInAt: Int64? { expiresAt == nil ? nil : authTime }
}

/// Why `IDTokenVerifier` refused a token. Each caller words it its own way (the database's
/// `Could not parse auth token.`, the accounts endpoints' `INVALID_ID_TOKEN`, ...).
public enum IDTokenError: Error, Sendable, Hashable {
    /// Not a JWT, a bad signature, an algorithm not accepted, a missing or invalid `exp`,
    /// `iat` or uid, or an `iat` too far in the future.
    case malformed
    /// `exp` has passed.
    case expired
    /// Signed in before the account's tokens were revoked (password or email changed).
    case revoked
    /// The account is disabled.
    case disabled
    /// The account was deleted.
    case deleted
}
