import Foundation
import HearthAccounts
import Testing

/// ID tokens as the database REST API sees them: expired, wrong key, unsigned, revoked.
struct AuthTokenVerificationTests {
    static let revoked = "Auth token is revoked: sign in again."

    /// Whether the database accepted `token` as a credential (a rules denial still counts).
    static func accepted(_ reply: TestServer.Reply) -> Bool {
        !(reply.status == 401 && reply.body.lowercased().contains("auth token"))
    }

    @Test func expiredWrongKeyAndUnsignedTokensAreRefused() async throws {
        try await AccountsClient.withServer { client in
            let expired = try await client.readWith(TokenMinter.token(expiresIn: -10, issuedAgo: 4000))
            #expect(expired.status == 401)
            #expect(JSONCompare.equal(expired.body, #"{"error":"Auth token is expired."}"#))
            let wrongKey = try await client.readWith(TokenMinter.token(secret: "another-key"))
            #expect(wrongKey.status == 401)
            #expect(JSONCompare.equal(wrongKey.body, #"{"error":"Could not parse auth token."}"#))
            let unsigned = try await client.readWith(TokenMinter.token(algorithm: "none"))
            #expect(unsigned.status == 401)
            #expect(JSONCompare.equal(unsigned.body, #"{"error":"Could not parse auth token."}"#))
            #expect(Self.accepted(try await client.readWith(TokenMinter.token())))
        }
    }

    @Test func unsignedTokensAreAcceptedUnderTheEmulator() async throws {
        try await AccountsClient.withServer(prepare: { $0.emulator = true }) { client in
            let reply = try await client.readWith(TokenMinter.token(algorithm: "none"))
            #expect(Self.accepted(reply))
        }
    }

    @Test func aPasswordChangeRevokesTheOldTokenForTheDatabase() async throws {
        try await AccountsClient.withServer { client in
            let signUp = try await client.signUp("ada@example.com")
            let old = signUp.string("idToken")
            #expect(Self.accepted(try await client.readWith(old)))
            let changed = try await client.call(
                "update",
                ["idToken": old, "password": "secret2", "returnSecureToken": true]
            )
            let refused = try await client.readWith(old)
            #expect(refused.status == 401)
            #expect(JSONCompare.equal(refused.body, "{\"error\": \"\(Self.revoked)\"}"))
            let bearer = try await client.server.send(
                "GET",
                "/anything.json",
                headers: [("Authorization", "Bearer \(old)")]
            )
            #expect(bearer.status == 401)
            #expect(Self.accepted(try await client.readWith(changed.string("idToken"))))
            // A streaming read with the revoked token is refused before it starts.
            let stream = try await client.server.send(
                "GET",
                "/anything.json?auth=\(old)",
                headers: [("Accept", "text/event-stream")]
            )
            #expect(stream.status == 401)
            #expect(stream.body.contains("revoked"))
        }
    }

    @Test func disablingAndDeletingRevokeEveryToken() async throws {
        try await AccountsClient.withServer { client in
            let ada = try await client.signUp("ada@example.com")
            let bob = try await client.signUp("bob@example.com")
            let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]
            let disabled = try await client.call(
                "update",
                ["localId": ada.string("localId"), "disableUser": true],
                headers: admin
            )
            #expect(disabled.status == 200, "\(disabled.body)")
            #expect(try await client.readWith(ada.string("idToken")).status == 401)
            let signIn = try await client.call(
                "signInWithPassword",
                ["email": "ada@example.com", "password": "secret1"]
            )
            #expect(signIn.errorMessage == "USER_DISABLED")
            #expect(try await client.refresh(ada.string("refreshToken")).errorMessage == "USER_DISABLED")
            let deleted = try await client.call("delete", ["localId": bob.string("localId")], headers: admin)
            #expect(deleted.status == 200)
            let refused = try await client.readWith(bob.string("idToken"))
            #expect(refused.status == 401)
            #expect(refused.body.contains("revoked"))
        }
    }

    @Test func adminCallsNeedTheAdminCredential() async throws {
        try await AccountsClient.withServer { client in
            let ada = try await client.signUp("ada@example.com")
            let uid = ada.string("localId")
            let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]
            let lookup = try await client.call(
                "lookup",
                ["localId": [uid], "email": ["ADA@example.com"]],
                headers: admin
            )
            #expect((lookup["users"] as? [[String: Any]])?.count == 1)
            let anonymous = try await client.call("update", ["localId": uid, "disableUser": true])
            #expect(anonymous.errorMessage == "INVALID_REQ_TYPE : Unsupported request parameters.")
            let notAdmin = try await client.call(
                "delete",
                ["localId": uid],
                headers: [("Authorization", "Bearer not-the-secret")]
            )
            #expect(notAdmin.errorMessage == "MISSING_ID_TOKEN")
            let missing = try await client.call("delete", ["localId": "nobody"], headers: admin)
            #expect(missing.errorMessage == "USER_NOT_FOUND")
            let noLocalID = try await client.call("update", ["disableUser": true], headers: admin)
            #expect(noLocalID.errorMessage == "MISSING_LOCAL_ID")
            let reset = try await client.call("update", ["localId": uid, "password": "secret9"], headers: admin)
            #expect(reset.status == 200)
            let signIn = try await client.call(
                "signInWithPassword",
                ["email": "ada@example.com", "password": "secret9"]
            )
            #expect(signIn.status == 200)
        }
    }

    @Test func failedSignInsAreRateLimitedPerAddress() async throws {
        try await AccountsClient.withServer(prepare: {
            $0.accounts.failuresPerAddress = 3
            $0.accounts.failuresPerAccount = 100
        }) { client in
            _ = try await client.signUp("ada@example.com")
            for index in 0..<3 {
                let answer = try await client.call(
                    "signInWithPassword",
                    ["email": "u\(index)@example.com", "password": "guess-1"]
                )
                #expect(answer.errorMessage == "INVALID_LOGIN_CREDENTIALS")
            }
            let limited = try await client.call(
                "signInWithPassword",
                ["email": "ada@example.com", "password": "secret1"]
            )
            #expect(limited.status == 400)
            #expect(limited.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
        }
    }

    @Test func failedSignInsAreRateLimitedPerAccount() async throws {
        try await AccountsClient.withServer(prepare: { $0.accounts.failuresPerAccount = 2 }) { client in
            _ = try await client.signUp("ada@example.com")
            for _ in 0..<2 {
                _ = try await client.call("signInWithPassword", ["email": "ada@example.com", "password": "guess-1"])
            }
            let limited = try await client.call(
                "signInWithPassword",
                ["email": "ada@example.com", "password": "secret1"]
            )
            #expect(limited.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
        }
    }

    @Test func theEmulatorUsesItsOwnErrorCodes() async throws {
        try await AccountsClient.withServer(prepare: { $0.emulator = true }) { client in
            _ = try await client.signUp("ada@example.com")
            let wrong = try await client.call(
                "signInWithPassword",
                ["email": "ada@example.com", "password": "wrong-1"]
            )
            #expect(wrong.errorMessage == "INVALID_PASSWORD")
            let unknown = try await client.call(
                "signInWithPassword",
                ["email": "bob@example.com", "password": "wrong-1"]
            )
            #expect(unknown.errorMessage == "EMAIL_NOT_FOUND")
            let reset = try await client.call(
                "sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "bob@example.com"]
            )
            #expect(reset.errorMessage == "EMAIL_NOT_FOUND")
        }
    }

    @Test func passwordResetGoesThroughTheOutbox() async throws {
        try await AccountsClient.withServer { client in
            let signUp = try await client.signUp("ada@example.com")
            let sent = try await client.call(
                "sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "Ada@example.com"]
            )
            #expect(sent.status == 200)
            #expect(sent.string("kind") == "identitytoolkit#GetOobConfirmationCodeResponse")
            #expect(sent.string("email") == "ada@example.com")
            let outbox = client.server.directory.appendingPathComponent("data/accounts/outbox.jsonl")
            let line = try #require(try String(contentsOf: outbox, encoding: .utf8).split(separator: "\n").first)
            let message = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let code = try #require(message["oobCode"] as? String)
            let link = try #require(message["link"] as? String)
            #expect(link.hasPrefix("http://127.0.0.1:\(client.server.port)/__/auth/action?mode=resetPassword&oobCode="))
            #expect(link.contains("apiKey=fake-api-key"))
            let check = try await client.call("resetPassword", ["oobCode": code])
            #expect(check.string("email") == "ada@example.com")
            #expect(check.string("requestType") == "PASSWORD_RESET")
            let reset = try await client.call("resetPassword", ["oobCode": code, "newPassword": "secret2"])
            #expect(reset.status == 200)
            #expect(reset.string("kind") == "identitytoolkit#ResetPasswordResponse")
            let again = try await client.call("resetPassword", ["oobCode": code, "newPassword": "secret3"])
            #expect(again.errorMessage == "INVALID_OOB_CODE")
            #expect(try await client.readWith(signUp.string("idToken")).status == 401)
            let signIn = try await client.call(
                "signInWithPassword",
                ["email": "ada@example.com", "password": "secret2"]
            )
            #expect(signIn.status == 200)
            // Unknown emails look the same and write nothing.
            let unknown = try await client.call(
                "sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "x@example.com"]
            )
            #expect(unknown.status == 200)
            #expect(try String(contentsOf: outbox, encoding: .utf8).split(separator: "\n").count == 1)
        }
    }
}
