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
            if error.message == RESTError.expiredToken.message {
                return .failed(.expiredToken, message: error.message)
            }
            return .failed(.invalidToken, message: error.message)
        }
        switch credential {
        case .admin:
            switch request.override {
            case nil: return .authenticated(.admin())
            case .unauthenticated?: return .authenticated(.anonymous)
            case .authVariable(let value)?: return .authenticated(.user(authVariable: value))
            }
        case .user(let claims):
            return .authenticated(Self.identity(for: claims))
        case .anonymous:
            return .failed(.invalidToken, message: RESTError.unparsableToken.message)
        }
    }

    /// The identity a REST/SSE credential acts as.
    static func identity(for credential: Credential) -> AuthIdentity {
        switch credential {
        case .admin: return .admin()
        case .anonymous: return .anonymous
        case .user(let claims): return identity(for: claims)
        }
    }

    /// `auth` = `{uid, provider, token}`, expiring with the token's `exp`.
    static func identity(for claims: UserClaims) -> AuthIdentity {
        let token = (try? JSONParser.parse(claims.claimsJSON)) ?? .object([])
        var members: [(String, JSONValue)] = [("uid", .string(claims.uid))]
        if let provider = claims.provider { members.append(("provider", .string(provider))) }
        members.append(("token", token))
        let expiresAt = token["exp"]?.numberValue.map { Timestamp(millisecondsSince1970: Int64($0 * 1000)) }
        return .user(authVariable: .object(members), expiresAt: expiresAt)
    }
}
