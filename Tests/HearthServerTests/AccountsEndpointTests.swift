import Foundation
import HearthAccounts
import Testing

/// The Firebase Auth REST endpoints on a real server: bodies, every error code, CORS.
struct AccountsEndpointTests {
    @Test func signUpSignInLookupAndRefreshAnswerFirebaseBodies() async throws {
        try await AccountsClient.withServer { client in
            let signUp = try await client.signUp("Ada@Example.com")
            #expect(signUp.string("kind") == "identitytoolkit#SignupNewUserResponse")
            #expect(signUp.string("email") == "ada@example.com")
            #expect(signUp.string("expiresIn") == "3600")
            let uid = signUp.string("localId")
            #expect(uid.count == 28)
            #expect(signUp.headers.first(name: "Access-Control-Allow-Origin") == "*")

            let signIn = try await client.call(
                "signInWithPassword",
                ["email": "ada@example.com", "password": "secret1", "returnSecureToken": true]
            )
            #expect(signIn.status == 200)
            #expect(signIn.string("kind") == "identitytoolkit#VerifyPasswordResponse")
            #expect(signIn["registered"] as? Bool == true)
            #expect(signIn.string("localId") == uid)
            #expect(!signIn.string("idToken").isEmpty && !signIn.string("refreshToken").isEmpty)

            let lookup = try await client.call("lookup", ["idToken": signIn.string("idToken")])
            #expect(lookup.status == 200)
            let user = try #require((lookup["users"] as? [[String: Any]])?.first)
            #expect(user["localId"] as? String == uid)
            #expect(user["email"] as? String == "ada@example.com")
            #expect(user["emailVerified"] as? Bool == false)
            #expect(user["passwordHash"] == nil && user["salt"] == nil)
            #expect((user["providerUserInfo"] as? [[String: Any]])?.first?["providerId"] as? String == "password")

            let refreshed = try await client.refresh(signIn.string("refreshToken"))
            #expect(refreshed.status == 200)
            #expect(refreshed.string("token_type") == "Bearer")
            #expect(refreshed.string("user_id") == uid)
            #expect(refreshed.string("expires_in") == "3600")
            #expect(refreshed.string("refresh_token") == signIn.string("refreshToken"))
            #expect(refreshed.string("id_token") == refreshed.string("access_token"))

            // The issued token is a user credential of the database (not refused as a token).
            let read = try await client.readWith(refreshed.string("id_token"))
            #expect(!read.body.contains("auth token"), "\(read.status) \(read.body)")
        }
    }

    @Test func errorBodiesHaveFirebasesShape() async throws {
        try await AccountsClient.withServer { client in
            _ = try await client.signUp("ada@example.com")
            let answer = try await client.call("signUp", ["email": "ada@example.com", "password": "secret1"])
            #expect(answer.status == 400)
            let error = try #require(answer["error"] as? [String: Any])
            #expect(error["code"] as? Int == 400)
            #expect(error["message"] as? String == "EMAIL_EXISTS")
            let first = try #require((error["errors"] as? [[String: Any]])?.first)
            #expect(first["message"] as? String == "EMAIL_EXISTS")
            #expect(first["domain"] as? String == "global")
            #expect(first["reason"] as? String == "invalid")
            #expect(answer.headers.first(name: "Access-Control-Allow-Origin") == "*")
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        var id: String
        var operation: String
        var body: [String: String]
        var message: String
        var description: String { id }
    }

    static let refusals: [Case] = [
        Case(
            id: "signUp taken",
            operation: "signUp",
            body: ["email": "ada@example.com", "password": "secret1"],
            message: "EMAIL_EXISTS"
        ),
        Case(id: "signUp no email", operation: "signUp", body: ["password": "secret1"], message: "MISSING_EMAIL"),
        Case(
            id: "signUp no password",
            operation: "signUp",
            body: ["email": "b@example.com"],
            message: "MISSING_PASSWORD"
        ),
        Case(
            id: "signUp bad email",
            operation: "signUp",
            body: ["email": "bad", "password": "secret1"],
            message: "INVALID_EMAIL"
        ),
        Case(
            id: "signUp weak",
            operation: "signUp",
            body: ["email": "b@example.com", "password": "12345"],
            message: "WEAK_PASSWORD : Password should be at least 6 characters"
        ),
        Case(
            id: "signIn wrong password",
            operation: "signInWithPassword",
            body: ["email": "ada@example.com", "password": "wrong-1"],
            message: "INVALID_LOGIN_CREDENTIALS"
        ),
        Case(
            id: "signIn unknown email",
            operation: "signInWithPassword",
            body: ["email": "nobody@example.com", "password": "secret1"],
            message: "INVALID_LOGIN_CREDENTIALS"
        ),
        Case(
            id: "signIn no password",
            operation: "signInWithPassword",
            body: ["email": "ada@example.com"],
            message: "MISSING_PASSWORD"
        ),
        Case(
            id: "signIn no email",
            operation: "signInWithPassword",
            body: ["password": "secret1"],
            message: "MISSING_EMAIL"
        ),
        Case(
            id: "signIn bad email",
            operation: "signInWithPassword",
            body: ["email": "x", "password": "secret1"],
            message: "INVALID_EMAIL"
        ),
        Case(id: "lookup no token", operation: "lookup", body: [:], message: "MISSING_ID_TOKEN"),
        Case(id: "lookup bad token", operation: "lookup", body: ["idToken": "a.b.c"], message: "INVALID_ID_TOKEN"),
        Case(
            id: "update no token",
            operation: "update",
            body: ["displayName": "x"],
            message: "INVALID_REQ_TYPE : Unsupported request parameters."
        ),
        Case(
            id: "update bad token",
            operation: "update",
            body: ["idToken": "x", "displayName": "x"],
            message: "INVALID_ID_TOKEN"
        ),
        Case(id: "delete no token", operation: "delete", body: [:], message: "MISSING_ID_TOKEN"),
        Case(id: "delete bad token", operation: "delete", body: ["idToken": "x.y.z"], message: "INVALID_ID_TOKEN"),
        Case(
            id: "oob no type",
            operation: "sendOobCode",
            body: ["email": "ada@example.com"],
            message: "MISSING_REQ_TYPE"
        ),
        Case(
            id: "oob other type",
            operation: "sendOobCode",
            body: ["requestType": "VERIFY_EMAIL", "email": "ada@example.com"],
            message: "INVALID_REQ_TYPE : Hearth sends only PASSWORD_RESET codes, not 'VERIFY_EMAIL'"
        ),
        Case(
            id: "oob no email",
            operation: "sendOobCode",
            body: ["requestType": "PASSWORD_RESET"],
            message: "MISSING_EMAIL"
        ),
        Case(
            id: "oob bad email",
            operation: "sendOobCode",
            body: ["requestType": "PASSWORD_RESET", "email": "x"],
            message: "INVALID_EMAIL"
        ),
        Case(
            id: "reset no code",
            operation: "resetPassword",
            body: ["newPassword": "secret2"],
            message: "MISSING_OOB_CODE"
        ),
        Case(
            id: "reset bad code",
            operation: "resetPassword",
            body: ["oobCode": "nope", "newPassword": "secret2"],
            message: "INVALID_OOB_CODE"
        ),
    ]

    @Test(arguments: refusals)
    func eachRefusalAnswersItsFirebaseCode(_ refusal: Case) async throws {
        try await AccountsClient.withServer { client in
            _ = try await client.signUp("ada@example.com")
            let answer = try await client.call(refusal.operation, refusal.body)
            #expect(answer.status == 400, "\(answer.body)")
            #expect(answer.errorMessage == refusal.message)
        }
    }

    @Test func tokenEndpointRefusals() async throws {
        try await AccountsClient.withServer { client in
            #expect(try await client.refresh("nope").errorMessage == "INVALID_REFRESH_TOKEN")
            #expect(try await client.refresh("").errorMessage == "MISSING_REFRESH_TOKEN")
            #expect(try await client.refresh("x", grantType: "authorization_code").errorMessage == "INVALID_GRANT_TYPE")
            let empty = try await client.send("/securetoken.googleapis.com/v1/token", headers: [], body: [])
            #expect(empty.errorMessage == "MISSING_GRANT_TYPE")
            // JSON bodies work too.
            let signUp = try await client.signUp("ada@example.com")
            let json = try JSONSerialization.data(withJSONObject: [
                "grant_type": "refresh_token", "refresh_token": signUp.string("refreshToken"),
            ])
            let answer = try await client.send(
                "/securetoken.googleapis.com/v1/token",
                headers: [("Content-Type", "application/json")],
                body: Array(json)
            )
            #expect(answer.status == 200)
        }
    }

    @Test func malformedBodiesAndUnknownOperations() async throws {
        try await AccountsClient.withServer { client in
            let bad = try await client.send(
                "/identitytoolkit.googleapis.com/v1/accounts:signUp",
                headers: [("Content-Type", "application/json")],
                body: Array("{not json".utf8)
            )
            #expect(bad.status == 400)
            #expect(bad.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true)
            let unknown = try await client.call("signInWithCustomToken", ["token": "x"])
            #expect(unknown.status == 404)
            let get = try await client.send(
                "/identitytoolkit.googleapis.com/v1/accounts:lookup",
                method: "GET",
                headers: [],
                body: []
            )
            #expect(get.status == 404)
        }
    }

    @Test func preflightsAreAnsweredForAuthURLs() async throws {
        try await AccountsClient.withServer { client in
            let reply = try await client.server.send(
                "OPTIONS",
                "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                headers: [
                    ("Origin", "http://localhost:5173"),
                    ("Access-Control-Request-Method", "POST"),
                    ("Access-Control-Request-Headers", "content-type,x-client-version"),
                ]
            )
            #expect(reply.status == 200)
            #expect(reply.headers.first(name: "Access-Control-Allow-Origin") == "*")
            #expect(reply.headers.first(name: "Access-Control-Allow-Methods")?.contains("POST") == true)
            #expect(reply.headers.first(name: "Access-Control-Allow-Headers") == "content-type,x-client-version")
        }
    }

    @Test func updateChangesTheProfileAndPasswordChangesReturnNewTokens() async throws {
        try await AccountsClient.withServer { client in
            let signUp = try await client.signUp("ada@example.com")
            let profile = try await client.call(
                "update",
                [
                    "idToken": signUp.string("idToken"), "displayName": "Ada", "photoUrl": "https://e.com/a.png",
                    "returnSecureToken": true,
                ]
            )
            #expect(profile.status == 200)
            #expect(profile.string("kind") == "identitytoolkit#SetAccountInfoResponse")
            #expect(profile.string("displayName") == "Ada")
            #expect(profile["idToken"] == nil)
            let cleared = try await client.call(
                "update",
                ["idToken": signUp.string("idToken"), "deleteAttribute": ["DISPLAY_NAME", "PHOTO_URL"]]
            )
            #expect(cleared["displayName"] == nil && cleared["photoUrl"] == nil)
            let password = try await client.call(
                "update",
                ["idToken": signUp.string("idToken"), "password": "secret2", "returnSecureToken": true]
            )
            #expect(password.status == 200)
            #expect(!password.string("idToken").isEmpty)
            #expect(
                try await client.call("lookup", ["idToken": signUp.string("idToken")]).errorMessage == "TOKEN_EXPIRED"
            )
            #expect(try await client.refresh(signUp.string("refreshToken")).errorMessage == "TOKEN_EXPIRED")
            #expect(try await client.call("lookup", ["idToken": password.string("idToken")]).status == 200)
            let weak = try await client.call("update", ["idToken": password.string("idToken"), "password": "123"])
            #expect(weak.errorMessage == "WEAK_PASSWORD : Password should be at least 6 characters")
            _ = try await client.signUp("bob@example.com")
            let taken = try await client.call(
                "update",
                ["idToken": password.string("idToken"), "email": "bob@example.com"]
            )
            #expect(taken.errorMessage == "EMAIL_EXISTS")
            let invalid = try await client.call("update", ["idToken": password.string("idToken"), "email": "bob"])
            #expect(invalid.errorMessage == "INVALID_EMAIL")
            let disable = try await client.call("update", ["idToken": password.string("idToken"), "disableUser": true])
            #expect(disable.errorMessage == "OPERATION_NOT_ALLOWED")
        }
    }

    @Test func deleteRemovesTheAccount() async throws {
        try await AccountsClient.withServer { client in
            let signUp = try await client.signUp("ada@example.com")
            let deleted = try await client.call("delete", ["idToken": signUp.string("idToken")])
            #expect(deleted.status == 200)
            #expect(deleted.string("kind") == "identitytoolkit#DeleteAccountResponse")
            #expect(
                try await client.call("lookup", ["idToken": signUp.string("idToken")]).errorMessage == "USER_NOT_FOUND"
            )
            let signIn = try await client.call(
                "signInWithPassword",
                ["email": "ada@example.com", "password": "secret1"]
            )
            #expect(signIn.errorMessage == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test func anonymousSignUp() async throws {
        try await AccountsClient.withServer { client in
            let answer = try await client.call("signUp", ["returnSecureToken": true])
            #expect(answer.status == 200)
            #expect(answer["email"] == nil)
            #expect(!answer.string("idToken").isEmpty)
        }
    }
}
