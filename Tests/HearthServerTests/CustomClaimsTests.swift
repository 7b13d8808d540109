import Foundation
import HearthAccounts
import Testing

/// Custom claims (`accounts:update` with `customAttributes`, as the Admin SDK's
/// `setCustomUserClaims` sends them): set by the admin only, bounded as Firebase bounds them,
/// shown by `accounts:lookup`, carried by the ID tokens issued afterwards and seen by rules as
/// `auth.token.<claim>`.
@Suite struct CustomClaimsTests {
    static let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]

    static func setClaims(
        _ accounts: AccountsClient,
        _ uid: String,
        _ claims: Any,
        headers: [(String, String)] = admin
    ) async throws -> AccountsClient.Answer {
        try await accounts.call("update", ["localId": uid, "customAttributes": claims], headers: headers)
    }

    /// `customAttributes` of the account as `accounts:lookup` shows it to the admin.
    static func storedClaims(_ accounts: AccountsClient, _ uid: String) async throws -> String? {
        let answer = try await accounts.call("lookup", ["localId": [uid]], headers: admin)
        let users = try #require(answer.json["users"] as? [[String: Any]])
        return users.first?["customAttributes"] as? String
    }

    /// The claims of a JWT (its payload, not checked).
    static func payload(_ token: String) throws -> [String: Any] {
        let part = try #require(token.split(separator: ".").dropFirst().first)
        let bytes = try #require(Base64URL.decode(part))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func theAdminsClaimsAreShownAndCarriedByLaterTokens() async throws {
        try await AccountsClient.withServer { accounts in
            let signUp = try await accounts.signUp("ada@example.com")
            let uid = signUp.string("localId")
            #expect(try Self.payload(signUp.string("idToken"))["role"] == nil)
            let set = try await Self.setClaims(accounts, uid, #"{"role": "editor", "level": 3}"#)
            #expect(set.status == 200, "\(set.body)")
            #expect(try await Self.storedClaims(accounts, uid) == #"{"role": "editor", "level": 3}"#)
            let refreshed = try await accounts.refresh(signUp.string("refreshToken"))
            let claims = try Self.payload(refreshed.string("id_token"))
            #expect(claims["role"] as? String == "editor")
            #expect(claims["level"] as? Int == 3)
            #expect(claims["user_id"] as? String == uid)
            let signIn = try await accounts.call(
                "signInWithPassword",
                ["email": "ada@example.com", "password": "secret1"]
            )
            #expect(try Self.payload(signIn.string("idToken"))["role"] as? String == "editor")
            // `{}` removes them.
            #expect(try await Self.setClaims(accounts, uid, "{}").status == 200)
            #expect(try await Self.storedClaims(accounts, uid) == nil)
            let cleared = try await accounts.refresh(signUp.string("refreshToken"))
            #expect(try Self.payload(cleared.string("id_token"))["role"] == nil)
        }
    }

    @Test func rulesSeeTheClaimsAsAuthToken() async throws {
        try await AccountsClient.withServer(prepare: { configuration in
            try? #"{"rules": {"drafts": {".read": "auth.token.role === 'editor'"}}}"#.write(
                toFile: configuration.rulesFile,
                atomically: true,
                encoding: .utf8
            )
        }) { accounts in
            try await accounts.server.put("/drafts", #"{"d1": "first draft"}"#)
            let signUp = try await accounts.signUp("ed@example.com")
            let before = try await accounts.server.send("GET", "/drafts.json?auth=\(signUp.string("idToken"))")
            #expect(before.status == 401)
            #expect(try await Self.setClaims(accounts, signUp.string("localId"), #"{"role":"editor"}"#).status == 200)
            let token = try await accounts.refresh(signUp.string("refreshToken")).string("id_token")
            let after = try await accounts.server.send("GET", "/drafts.json?auth=\(token)")
            #expect(after.status == 200, "\(after.body)")
            #expect(JSONCompare.equal(after.body, #"{"d1": "first draft"}"#))
        }
    }

    @Test func badClaimsAreRefusedAndChangeNothing() async throws {
        try await AccountsClient.withServer { accounts in
            let signUp = try await accounts.signUp("bo@example.com")
            let uid = signUp.string("localId")
            #expect(try await Self.setClaims(accounts, uid, #"{"team":"blue"}"#).status == 200)
            let refusals: [(claims: Any, message: String)] = [
                ("{nope", "INVALID_CLAIMS"),
                ("[1, 2]", "INVALID_CLAIMS"),
                ("\"admin\"", "INVALID_CLAIMS"),
                (["team": "red"], "INVALID_CLAIMS"),
                (#"{"big": ""# + String(repeating: "x", count: 990) + #""}"#, "CLAIMS_TOO_LARGE"),
                (#"{"sub": "someone-else"}"#, "FORBIDDEN_CLAIM : sub"),
                (#"{"user_id": "someone-else"}"#, "FORBIDDEN_CLAIM : user_id"),
                (#"{"ok": 1, "firebase": {}}"#, "FORBIDDEN_CLAIM : firebase"),
                (#"{"auth_time": 1}"#, "FORBIDDEN_CLAIM : auth_time"),
            ]
            for (claims, message) in refusals {
                let answer = try await Self.setClaims(accounts, uid, claims)
                #expect(answer.status == 400, "\(claims)")
                #expect(answer.errorMessage?.hasPrefix(message) == true, "\(claims): \(answer.body)")
            }
            // The owner may not set its own claims, nor may a caller without a credential.
            let own = try await accounts.call(
                "update",
                ["idToken": signUp.string("idToken"), "customAttributes": #"{"team":"gold"}"#]
            )
            #expect(own.status == 400)
            #expect(own.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true, "\(own.body)")
            let anonymous = try await Self.setClaims(accounts, uid, #"{"team":"gold"}"#, headers: [])
            #expect(anonymous.status == 400)
            let wrongSecret = try await Self.setClaims(
                accounts,
                uid,
                #"{"team":"gold"}"#,
                headers: [("Authorization", "Bearer not-the-admin")]
            )
            #expect(wrongSecret.status == 400)
            #expect(try await Self.storedClaims(accounts, uid) == #"{"team":"blue"}"#)
        }
    }
}
