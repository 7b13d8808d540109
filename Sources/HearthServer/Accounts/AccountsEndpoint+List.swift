import HearthAccounts
import Hummingbird

extension AccountsEndpoint {
    /// The most accounts one page holds (Firebase's `maxResults` limit).
    static let maxListedAccounts = 1_000

    /// `GET .../accounts:batchGet?maxResults=N&nextPageToken=T` (the admin only, as the Admin
    /// SDK's `listUsers` calls it): accounts in uid order, `maxResults` (default 20) at a time,
    /// `nextPageToken` the last uid of a full page.
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
        let after = query["nextPageToken"].flatMap { Base64URL.decode(Substring($0)) }.map {
            String(decoding: $0, as: UTF8.self)
        }
        let sorted = accounts.allAccounts().sorted { $0.localId.utf8.lexicographicallyPrecedes($1.localId.utf8) }
        let page = sorted.filter { after == nil || after!.utf8.lexicographicallyPrecedes($0.localId.utf8) }.prefix(
            limit + 1
        )
        var object: [String: Any] = [
            "kind": "identitytoolkit#DownloadAccountResponse",
            "users": page.prefix(limit).map(AccountsResponse.user),
        ]
        if page.count > limit, let last = page.prefix(limit).last {
            object["nextPageToken"] = Base64URL.encode(Array(last.localId.utf8))
        }
        return AccountsResponse.json(object)
    }
}
