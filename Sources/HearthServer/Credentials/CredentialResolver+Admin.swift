import Hummingbird

extension CredentialResolver {
    /// True when `request` carries the admin credential (`auth` in `query`, or
    /// `Authorization: Bearer`): the admin-only endpoints outside the REST tree.
    func isAdmin(_ request: Request, query: Substring?) -> Bool {
        isAdmin(authorization: request.headers[.authorization], query: query)
    }

    /// Whether the request's `Authorization` header or `auth` query parameter is the admin's.
    func isAdmin(authorization: String?, query: Substring?) -> Bool {
        let auth = (try? QueryString(query))?["auth"]
        return (try? resolve(queryAuth: auth, authorization: authorization)) == .admin
    }
}
