import HearthCore
import HearthDatabase
import HearthProtocol
import HearthRules

/// Who the rules see for a request or a connection: the one place a verified credential turns
/// into the rules' `auth`.
extension AuthIdentity {
    var caller: Caller {
        switch role {
        case .admin: return .admin
        case .anonymous: return .anonymous
        case .user:
            // A user whose `auth` cannot be read gets no more than an anonymous caller.
            guard let auth = (try? RuleAuth(json: authVariable)) ?? nil else { return .anonymous }
            return .user(auth)
        }
    }
}

extension Credential {
    var caller: Caller {
        switch self {
        case .admin: return .admin
        case .anonymous: return .anonymous
        case .user(let claims): return RealtimeCredentials.identity(for: claims).caller
        }
    }
}
