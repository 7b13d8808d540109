import HearthTestSupport
import Testing

@testable import HearthAccounts

/// `AccountsStore.searchAccounts`: e-mail matches, then uid matches not already listed, each
/// page bounded by the rows it may skip.
@Suite struct AccountsSearchStoreTests {
    /// Every page of a search, following `next` (bounded).
    static func pages(
        _ store: AccountsStore,
        _ text: String,
        limit: Int,
        skipBudget: Int
    ) throws -> [[AccountRecord]] {
        var pages: [[AccountRecord]] = []
        var after: String?
        for _ in 0..<500 {
            let page = try store.searchAccounts(text, after: after, limit: limit, skipBudget: skipBudget)
            pages.append(page.accounts)
            guard let next = page.next else { return pages }
            after = next
        }
        throw TestFailure("the search did not end within 500 pages")
    }

    @Test func aPageEndsEarlyAfterSkippingItsBudgetAndTheSearchStillFindsEachAccountOnce() async throws {
        try await TemporaryAccounts.with { store, _ in
            var accounts: [AccountRecord] = []
            for n in 0..<70 {
                accounts.append(try await store.createAccount(email: "_acct\(n)@example.com", password: "secret1"))
            }
            // 70 uids over 62 first characters: some character starts at least two of them.
            let first = Dictionary(grouping: accounts) { $0.localId.prefix(1) }.max { $0.value.count < $1.value.count }!
            let text = String(first.key)
            // Their e-mails start with the same text, so the uid part skips them all.
            for (n, account) in first.value.enumerated() {
                _ = try await store.update(
                    uid: account.localId,
                    changes: AccountChanges(email: "\(text.lowercased())\(n)@example.com")
                )
            }
            let expected = Set(first.value.map(\.localId))
            let roomy = try Self.pages(store, text, limit: 100, skipBudget: 100)
            #expect(roomy.count == 1)
            #expect(Set(roomy.flatMap { $0 }.map(\.localId)) == expected)
            let tight = try Self.pages(store, text, limit: 1, skipBudget: 0)
            let found = tight.flatMap { $0 }.map(\.localId)
            #expect(found.count == expected.count && Set(found) == expected)
            #expect(tight.allSatisfy { $0.count <= 1 })
            // Each skipped uid row ends a page of its own, empty.
            #expect(tight.filter(\.isEmpty).count >= expected.count)
            #expect(throws: AccountsError.self) { try store.searchAccounts(text, after: "x:forged", limit: 1) }
            #expect(throws: AccountsError.self) { try store.searchAccounts("", after: nil, limit: 1) }
        }
    }
}
