import Crypto
import HearthAccounts

/// Turns a request's `auth` query parameter or `Authorization: Bearer` header into a
/// `Credential`. A credential that is present but invalid is refused; it never falls back to
/// anonymous. ID tokens are checked by `IDTokenVerifier`, as the accounts endpoints check them.
struct CredentialResolver: Sendable {
    let adminSecret: String
    let emulator: Bool
    let verifier: IDTokenVerifier

    /// - Parameters:
    ///   - projectID: tokens whose `aud` or `iss` name another project are refused (unless `emulator`).
    ///   - revocations: the accounts' revocation state; tokens it revokes are refused.
    init(
        adminSecret: String,
        jwtSecret: String?,
        emulator: Bool,
        projectID: String? = nil,
        revocations: RevocationRegistry? = nil
    ) {
        self.adminSecret = adminSecret
        self.emulator = emulator
        self.verifier = IDTokenVerifier(
            secret: jwtSecret,
            emulator: emulator,
            projectID: projectID,
            revocations: revocations
        )
    }

    func resolve(queryAuth: String?, authorization: String?) throws(CredentialError) -> Credential {
        let presented: String
        if let queryAuth {
            presented = queryAuth
        } else if let authorization {
            let trimmed = authorization.drop { $0 == " " }
            guard let space = trimmed.firstIndex(of: " "),
                trimmed[..<space].lowercased() == "bearer"
            else { throw .unparsable }
            presented = String(trimmed[trimmed.index(after: space)...].drop { $0 == " " })
        } else {
            return .anonymous
        }
        return try resolve(token: presented)
    }

    func resolve(token: String) throws(CredentialError) -> Credential {
        guard !token.isEmpty else { throw .unparsable }
        if !adminSecret.isEmpty, Self.constantTimeEqual(token, adminSecret) { return .admin }
        if emulator, token == "owner" { return .admin }
        do {
            let verified = try verifier.verify(token)
            return .user(UserClaims(verified))
        } catch {
            throw CredentialError(refusing: error)
        }
    }

    /// Compares without an early exit, so timing does not reveal a common prefix.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = SHA256.hash(data: Array(a.utf8))
        let y = SHA256.hash(data: Array(b.utf8))
        var difference: UInt8 = 0
        for (p, q) in zip(x, y) { difference |= p ^ q }
        return difference == 0
    }
}
