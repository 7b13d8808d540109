import Foundation
import Testing

/// `accounts:batchGet`: the admin pages through every account in uid order (the Admin SDK's
/// `listUsers`).
@Suite struct AccountsListTests {
    static let path = "/identitytoolkit.googleapis.com/v1/projects/demo/accounts:batchGet"

    static func list(
        _ accounts: AccountsClient,
        _ query: String,
        admin: Bool = true
    ) async throws -> AccountsClient.Answer {
        let headers = admin ? [("Authorization", "Bearer \(TestServer.adminSecret)")] : []
        return try await accounts.send(Self.path + query, method: "GET", headers: headers, body: [])
    }

    @Test func theAdminPagesThroughEveryAccountInUIDOrder() async throws {
        try await AccountsClient.withServer { accounts in
            var uids: [String] = []
            for name in ["ann", "ben", "cat"] {
                uids.append(try await accounts.signUp("\(name)@example.com").string("localId"))
            }
            var listed: [String] = []
            var token: String? = nil
            for _ in 0..<5 {
                let answer = try await Self.list(
                    accounts,
                    "?maxResults=2" + (token.map { "&nextPageToken=\($0)" } ?? "")
                )
                #expect(answer.status == 200, "\(answer.body)")
                let users = try #require(answer.json["users"] as? [[String: Any]])
                listed += users.compactMap { $0["localId"] as? String }
                #expect(users.allSatisfy { $0["email"] is String && $0["passwordHash"] == nil })
                token = answer.json["nextPageToken"] as? String
                if token == nil { break }
            }
            #expect(listed == uids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            let refused = try await Self.list(accounts, "", admin: false)
            #expect(refused.status == 403)
            #expect(refused.body.contains("INSUFFICIENT_PERMISSION"))
            #expect(try await Self.list(accounts, "?maxResults=0").status == 400)
        }
    }
}
