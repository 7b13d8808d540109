/// A page of accounts and where the next one starts.
public struct AccountsPage: Sendable {
    public var accounts: [AccountRecord]
    /// Where the next page starts (give it back as `after`); nil after the last page.
    public var next: String?
}

extension AccountsStore {
    /// The longest search text, in UTF-8 bytes (an e-mail address is at most 254).
    public static let maxSearchBytes = 256
    /// Rows one search page may read beyond the accounts it returns (accounts found by uid that
    /// the e-mail part already listed are skipped); past it the page ends early, with a `next`.
    public static let searchSkipBudget = 1_000

    /// Accounts in uid order after the uid `after`, at most `limit`: one range read of the
    /// `a/<uid>` keys from `after` on, so a page costs its own rows, whatever the total.
    public func listAccounts(after: String?, limit: Int) -> AccountsPage {
        var accounts: [AccountRecord] = []
        var more = false
        let start = after.map { AccountsDatabase.accountKey($0) + "\u{0}" } ?? "a/"
        database.file.scan(prefix: "a/", from: start) { _, value in
            if accounts.count >= limit {
                more = true
                return false
            }
            if let account = database.decodeAccount(value) { accounts.append(account) }
            return true
        }
        return AccountsPage(accounts: accounts, next: more ? accounts.last?.localId : nil)
    }

    /// The accounts whose e-mail starts with `text` (lowercased, as e-mails are stored), in
    /// e-mail order, then those whose uid starts with `text` (as typed: uids are case-sensitive)
    /// and whose e-mail does not, in uid order; at most `limit`, from `after` (a page's `next`).
    ///
    /// Two range reads of keys LevelDB keeps sorted: the e-mail index `e/<email>` and the
    /// accounts `a/<uid>`. A page reads its own rows plus at most `searchSkipBudget` skipped
    /// ones (`skipBudget`), however many accounts there are; nothing scans every account.
    /// - Throws: `INVALID_ARGUMENT` for an empty or too long `text`, or an `after` that no
    ///   search returned.
    public func searchAccounts(
        _ text: String,
        after: String?,
        limit: Int,
        skipBudget: Int = searchSkipBudget
    ) throws(AccountsError) -> AccountsPage {
        guard !text.isEmpty else { throw AccountsError(.invalidArgument, "search must not be empty") }
        guard text.utf8.count <= Self.maxSearchBytes else {
            throw AccountsError(.invalidArgument, "search must be at most \(Self.maxSearchBytes) bytes")
        }
        let cursor = try SearchCursor(after)
        let emailPrefix = text.lowercased()
        var found: [AccountRecord] = []
        var next: SearchCursor?
        if cursor.inEmails {
            var last = cursor.key
            let prefix = AccountsDatabase.emailKey(emailPrefix)
            database.file.scan(prefix: prefix, from: last.map { AccountsDatabase.emailKey($0) + "\u{0}" } ?? prefix) {
                key,
                value in
                if found.count >= limit {
                    next = SearchCursor(inEmails: true, key: last)
                    return false
                }
                last = String(key.dropFirst(2))
                if let account = database.account(uid: String(decoding: value, as: UTF8.self)) { found.append(account) }
                return true
            }
            if let next { return AccountsPage(accounts: found, next: next.token) }
        }
        var last = cursor.inEmails ? nil : cursor.key
        var read = 0
        let prefix = AccountsDatabase.accountKey(text)
        database.file.scan(prefix: prefix, from: last.map { AccountsDatabase.accountKey($0) + "\u{0}" } ?? prefix) {
            key,
            value in
            if found.count >= limit || read >= limit + skipBudget {
                next = SearchCursor(inEmails: false, key: last)
                return false
            }
            read += 1
            last = String(key.dropFirst(2))
            guard let account = database.decodeAccount(value) else { return true }
            // Already listed by its e-mail.
            if let email = account.email, email.hasPrefix(emailPrefix) { return true }
            found.append(account)
            return true
        }
        return AccountsPage(accounts: found, next: next?.token)
    }
}

/// Where a search page resumes: in the e-mail part or the uid part, after `key` (nil: at the
/// part's start). Its token is `e:<email>` or `a:<uid>`.
private struct SearchCursor {
    var inEmails: Bool
    var key: String?

    init(inEmails: Bool, key: String?) {
        self.inEmails = inEmails
        self.key = key
    }

    init(_ token: String?) throws(AccountsError) {
        guard let token else {
            self.init(inEmails: true, key: nil)
            return
        }
        guard token.hasPrefix("e:") || token.hasPrefix("a:") else {
            throw AccountsError(.invalidArgument, "nextPageToken is not one this search returned")
        }
        let key = String(token.dropFirst(2))
        self.init(inEmails: token.hasPrefix("e:"), key: key.isEmpty ? nil : key)
    }

    var token: String { (inEmails ? "e:" : "a:") + (key ?? "") }
}
