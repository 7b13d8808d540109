import HearthAccounts
import HearthCore
import HearthProtocol

/// Verifies the credential of a realtime `auth` / `gauth` request and the credential of an
/// SSE stream, with the same rules as REST (`CredentialResolver`): the admin secret (or
/// `owner` under `--emulator`) is admin; an HS256 ID token (or an unsigned one under
/// `--emulator`) is a user whose `auth` is `{uid, provider, token}`; anything else is refused.
struct RealtimeCredentials: Sendable {
    let resolver: CredentialResolver

    /// The outcome for the session: `.authenticated(identity)` or `.failed(...)`.
    func authenticate(_ request: AuthRequest) -> RequestOutcome {
        let credential: Credential
        do {
            credential = try resolver.resolve(token: request.credential)
        } catch {
            let answer = ErrorAnswer.credential(error)
            return .failed(answer.wireStatus, message: answer.message)
        }
        switch credential {
        case .admin:
            switch request.override {
            case nil: return .authenticated(.admin())
            case .unauthenticated?: return .authenticated(.anonymous)
            case .authVariable(let value)?: return .authenticated(.user(authVariable: value))
            }
        case .user(let claims):
            return .authenticated(identity(for: claims))
        case .anonymous:
            let answer = ErrorAnswer.credential(.unparsable)
            return .failed(answer.wireStatus, message: answer.message)
        }
    }

    /// A user's identity that notices when the accounts store revokes its token (checked on
    /// every tick of the connection, and by SSE streams).
    func identity(for claims: UserClaims) -> AuthIdentity {
        var identity = Self.identity(for: claims)
        if let revocations = resolver.verifier.revocations {
            identity.revocation = AccountRevocationProbe(
                registry: revocations,
                uid: claims.uid,
                signedInAt: claims.signedInAt ?? .max
            )
        }
        return identity
    }

    /// The identity a REST/SSE credential acts as, watching for revocation.
    func identity(forCredential credential: Credential) -> AuthIdentity {
        if case .user(let claims) = credential { return identity(for: claims) }
        return Self.identity(for: credential)
    }

    /// The identity a REST/SSE credential acts as.
    static func identity(for credential: Credential) -> AuthIdentity {
        switch credential {
        case .admin: return .admin()
        case .anonymous: return .anonymous
        case .user(let claims): return identity(for: claims)
        }
    }

    /// `auth` = `{uid, provider, token}`, expiring with the credential.
    static func identity(for claims: UserClaims) -> AuthIdentity {
        let token = (try? JSONParser.parse(claims.claimsJSON)) ?? .object([])
        var members: [(String, JSONValue)] = [("uid", .string(claims.uid))]
        if let provider = claims.provider { members.append(("provider", .string(provider))) }
        members.append(("token", token))
        // An `exp` past what a timestamp holds (`1e300`) never comes.
        let expiresAt = claims.expiresAt.flatMap { seconds in
            Int64(exactly: (seconds * 1000).rounded(.down)).map { Timestamp(millisecondsSince1970: $0) }
        }
        var identity = AuthIdentity.user(authVariable: .object(members), expiresAt: expiresAt)
        identity.signedInUID = claims.uid
        return identity
    }
}

/// Asks the accounts store whether a user's token was revoked after it was verified.
struct AccountRevocationProbe: CredentialRevocationProbe {
    let registry: RevocationRegistry
    let uid: String
    let signedInAt: Int64

    var isRevoked: Bool { registry.liveStatus(uid: uid, authTime: signedInAt) != .valid }
}
