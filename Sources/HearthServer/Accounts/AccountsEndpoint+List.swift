import HearthAccounts
import Hummingbird

extension AccountsEndpoint {
    /// The most accounts one page holds (Firebase's `maxResults` limit).
    static let maxListedAccounts = 1_000

    /// `GET .../accounts:batchGet?maxResults=N&nextPageToken=T` (the admin only, as the Admin
    /// SDK's `listUsers` calls it): accounts in uid order, `maxResults` (default 20) at a time,
    /// `nextPageToken` the last uid of a full page. With `search=S` (Hearth's own): the accounts
    /// whose e-mail starts with S (any case), then those whose uid does (`AccountsStore.searchAccounts`),
    /// paged alike; a page may be shorter than `maxResults` and still have a `nextPageToken`.
    func listAccounts(_ request: Request) throws(AccountsError) -> Response {
        guard isAdmin(request) else {
            throw AccountsError(.insufficientPermission, "accounts:batchGet needs the admin credential")
        }
        let target = PercentDecoding.splitTarget(request.head.path ?? "/")
        let query: QueryString
        do {
            query = try QueryString(target.query)
        } catch {
            throw AccountsError(.invalidArgument, "the query string is malformed")
        }
        var limit = 20
        if let text = query["maxResults"] {
            guard let value = Int(text), value >= 1, value <= Self.maxListedAccounts else {
                throw AccountsError(
                    .invalidArgument,
                    "maxResults must be 1 to \(Self.maxListedAccounts), not '\(text.prefix(16))'"
                )
            }
            limit = value
        }
        var after: String?
        if let token = query["nextPageToken"], !token.isEmpty {
            guard let bytes = Base64URL.decode(Substring(token)) else {
                throw AccountsError(.invalidArgument, "nextPageToken is not one a page of this listing returned")
            }
            after = String(decoding: bytes, as: UTF8.self)
        }
        let search = query["search"]?.trimmingWhitespace() ?? ""
        let page =
            try search.isEmpty
            ? accounts.listAccounts(after: after, limit: limit)
            : accounts.searchAccounts(search, after: after, limit: limit)
        var object: [String: Any] = [
            "kind": "identitytoolkit#DownloadAccountResponse",
            "users": page.accounts.map(AccountsResponse.user),
        ]
        if let next = page.next { object["nextPageToken"] = Base64URL.encode(Array(next.utf8)) }
        return AccountsResponse.json(object)
    }
}

extension String {
    /// The text without leading and trailing spaces, tabs and line breaks.
    fileprivate func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
