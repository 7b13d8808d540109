import Hummingbird

extension CredentialResolver {
    /// True when `request` carries the admin credential (`auth` in `query`, or
    /// `Authorization: Bearer`): the admin-only endpoints outside the REST tree.
    func isAdmin(_ request: Request, query: Substring?) -> Bool {
        let auth = (try? QueryString(query))?["auth"]
        return (try? resolve(queryAuth: auth, authorization: request.headers[.authorization])) == .admin
    }
}
