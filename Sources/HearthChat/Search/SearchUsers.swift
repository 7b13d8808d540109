import HearthAccounts
public import HearthCore
public import HearthFunctions

/// `searchUsers {query, limit?, startAfter?}` → `{users: [{uid, displayName, photoUrl, status}],
/// next}`: registered users one of whose display-name words starts with each word of the
/// query, case-insensitively, paged with an opaque cursor. Served from the name-words lookup
/// index (`NameWordsLookup`), scanned by the query word fewest entries start with, in (word, uid) order; a user
/// is listed at the first of their words that starts with it, so once across all pages. One
/// call scans at most `scanBudget` index entries: a page may then hold fewer than `limit`
/// users, with `next` to go on. `next` is null on the last page. The caller is never listed;
/// phone numbers and e-mails never are.
public struct SearchUsers: Callable {
    public init() {}

    public var name: String { "searchUsers" }

    /// Index entries one call reads at most.
    static let scanBudget = 2_000

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let query = try SearchQuery(try CallData(request.data, usage: SearchQuery.usage))
        let accounts = request.accounts
        let page = try await request.database.read { snapshot throws(CallableError) in
            // The first page picks the query word fewest index entries start with; `next` keeps it.
            let word = query.after?.word ?? Self.rarestWord(query.words, in: snapshot)
            let scannedWord = query.words[word]
            var users: [JSONValue] = []
            var scanned = 0
            var last: [UInt8]? = nil
            var ended = true
            let valid = snapshot.lookup(NameWordsLookup.name, termPrefix: scannedWord, after: query.after?.position) {
                match in
                guard scanned < Self.scanBudget else {
                    ended = false
                    return false
                }
                let found = match.location.keys[1].string
                // Judged on the entry's payload (the name's words) first: a profile is read only
                // for a user who is listed here.
                let words = NameWordsLookup.words(inPayload: match.payload)
                var user: JSONValue? = nil
                if found != uid, Self.isListed(words, at: match.term, scanning: scannedWord, for: query),
                    accounts.isActive(uid: found), let profile = snapshot.node(at: DataPath("users", found))
                {
                    user = Self.entry(found, profile)
                }
                // A full page ends at the next user it cannot hold, not at the next entry: one
                // that lists nobody (the caller's, an unregistered profile's) is stepped over,
                // so the last page says `next: null` rather than leading to an empty one.
                if user != nil, users.count == query.limit {
                    ended = false
                    return false
                }
                scanned += 1
                last = match.position
                if let user { users.append(user) }
                return true
            }
            guard valid else {
                throw CallableError.invalidArgument(
                    "'startAfter' is not a 'next' of this query ('\(scannedWord)'): send the query of the page before."
                )
            }
            let next: JSONValue =
                ended ? .null : last.map { .string(SearchQuery.next(word: word, position: $0)) } ?? .null
            return ["users": .array(users), "next": next] as JSONValue
        }
        return page
    }

    /// Index entries counted per query word when choosing the one to scan by.
    static let rarityProbe = 512

    /// The query word the fewest index entries start with (counted up to `rarityProbe` each;
    /// ties: the longer word), so that a two-word query reads what it must, not all of a common
    /// prefix.
    static func rarestWord(_ words: [String], in snapshot: CallableSnapshot) -> Int {
        guard words.count > 1 else { return 0 }
        var best = (index: 0, count: Int.max, length: 0)
        for (index, word) in words.enumerated() {
            var count = 0
            snapshot.lookup(NameWordsLookup.name, termPrefix: word, after: nil) { _ in
                count += 1
                return count < min(rarityProbe, best.count)
            }
            // A count that reached the probe is "many": among those, the longer word.
            let bothMany = count == rarityProbe && best.count == rarityProbe
            if count < best.count || (bothMany && word.utf8.count > best.length) {
                best = (index, count, word.utf8.count)
            }
        }
        return best.index
    }

    /// Whether a name of `words` is listed at the index entry of `term`: it has a word starting
    /// with each query word, and `term` is the first of its words (in index order) starting
    /// with the scanned one (so each user is listed once across pages).
    static func isListed(
        _ words: [String],
        at term: String,
        scanning scannedWord: String,
        for query: SearchQuery
    )
        -> Bool
    {
        for wanted in query.words where !words.contains(where: { $0.utf8.starts(with: wanted.utf8) }) { return false }
        let first = words.filter { $0.utf8.starts(with: scannedWord.utf8) }
            .min { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return first == term
    }

    /// The result entry of `uid`: `uid`, `displayName`, `photoUrl`, `status` (no phone, no
    /// e-mail); nil for a profile without a display name.
    static func entry(_ uid: String, _ profile: Node) -> JSONValue? {
        guard let displayName = profile.string("displayName") else { return nil }
        var fields: [(String, JSONValue)] = [("uid", .string(uid)), ("displayName", .string(displayName))]
        for field in ["photoUrl", "status"] {
            if let value = profile.string(field) { fields.append((field, .string(value))) }
        }
        return .object(fields)
    }
}
