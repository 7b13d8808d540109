import Foundation
import Testing

/// `accounts:batchGet?search=S`: the admin finds accounts by the start of their e-mail (any case)
/// or uid among many, a page at a time, without the console loading them all.
@Suite struct AccountsSearchTests {
    /// The e-mails of every page of a search for `text`, following `nextPageToken`.
    static func searchAll(_ accounts: AccountsClient, _ text: String, pageSize: Int) async throws -> [[String]] {
        var pages: [[String]] = []
        var token: String?
        for _ in 0..<50 {
            var query =
                "?maxResults=\(pageSize)&search=\(text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            if let token { query += "&nextPageToken=\(token)" }
            let answer = try await AccountsListTests.list(accounts, query)
            #expect(answer.status == 200, "\(answer.body)")
            let users = answer.json["users"] as? [[String: Any]] ?? []
            pages.append(users.map { $0["email"] as? String ?? "uid:" + ($0["localId"] as? String ?? "") })
            token = answer.json["nextPageToken"] as? String
            if token == nil { return pages }
        }
        throw TestFailure("the search of '\(text)' did not end within 50 pages")
    }

    @Test func theAdminFindsAccountsByTheStartOfTheirEmailAmongMany() async throws {
        try await AccountsClient.withServer { accounts in
            for n in 0..<150 {
                _ = try await accounts.signUp(String(format: "user%03d@example.com", n))
            }
            _ = try await accounts.signUp("Zed.Special@Example.com")
            let pages = try await Self.searchAll(accounts, "user01", pageSize: 4)
            #expect(pages.map(\.count) == [4, 4, 2])
            #expect(pages.flatMap { $0 } == (10..<20).map { "user0\($0)@example.com" })
            #expect(try await Self.searchAll(accounts, "ZED.s", pageSize: 20) == [["zed.special@example.com"]])
            #expect(try await Self.searchAll(accounts, "nobody", pageSize: 20) == [[]])
        }
    }

    @Test func theAdminFindsAnAccountByTheStartOfItsUID() async throws {
        try await AccountsClient.withServer { accounts in
            var uids: [String: String] = [:]
            for name in ["ann", "ben", "cat", "dan"] {
                uids[name] = try await accounts.signUp("\(name)@example.com").string("localId")
            }
            let ben = try #require(uids["ben"])
            let found = try await Self.searchAll(accounts, String(ben.prefix(10)), pageSize: 20).flatMap { $0 }
            #expect(found == ["ben@example.com"])
            // An account whose e-mail and uid both start with the text is listed once, by its e-mail.
            let cat = try #require(uids["cat"])
            let renamed = try await accounts.call(
                "update",
                ["localId": cat, "email": cat.lowercased() + "@example.com"],
                headers: [("Authorization", "Bearer \(TestServer.adminSecret)")]
            )
            #expect(renamed.status == 200, "\(renamed.body)")
            let overlap = try await Self.searchAll(accounts, String(cat.prefix(8)), pageSize: 20).flatMap { $0 }
            #expect(overlap == [cat.lowercased() + "@example.com"])
        }
    }

    @Test func badSearchesAndOtherCallersAreRefused() async throws {
        try await AccountsClient.withServer { accounts in
            _ = try await accounts.signUp("ann@example.com")
            let stranger = try await AccountsListTests.list(accounts, "?search=ann", admin: false)
            #expect(stranger.status == 403)
            #expect(stranger.errorMessage?.hasPrefix("INSUFFICIENT_PERMISSION") == true)
            let long = try await AccountsListTests.list(accounts, "?search=" + String(repeating: "a", count: 257))
            #expect(long.status == 400)
            #expect(long.errorMessage?.contains("search must be at most 256 bytes") == true, "\(long.body)")
            let token = "bm90LWEtY3Vyc29y"  // "not-a-cursor"
            let forged = try await AccountsListTests.list(accounts, "?search=ann&nextPageToken=\(token)")
            #expect(forged.status == 400)
            #expect(forged.errorMessage?.contains("nextPageToken") == true, "\(forged.body)")
        }
    }
}
