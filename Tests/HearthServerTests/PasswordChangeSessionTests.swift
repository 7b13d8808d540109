import Foundation
import HearthServer
import Testing

/// Changing the password with `accounts:update` answers new tokens. The Firebase SDK adopts
/// them and re-authenticates its WebSocket itself; the connection must not be revoked before
/// it can, or the database SDK refreshes with the old (revoked) refresh token and the Auth SDK
/// signs the user out (seen with the JS SDK 9.8.1 in `scripts/sdk-check/auth-check.html`).
struct PasswordChangeSessionTests {
    static let rules = #"{"rules": {"things": {".read": "auth != null", ".write": "auth != null"}}}"#

    @Test func aPasswordChangersConnectionSwitchesToTheNewTokensWithoutBeingRevoked() async throws {
        try await AccountsClient.withServer(prepare: { configuration in
            try? Self.rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
            // Wider than the default second: a loaded box (a parallel suite) can take longer
            // than that between the answer and the re-authentication.
            configuration.accounts.liveSessionGrace = .seconds(5)
        }) { accounts in
            let server = accounts.server
            try await server.put("/things", #"{"a":1}"#)
            let signUp = try await accounts.signUp("ada@example.com")
            let oldToken = signUp.string("idToken")
            let oldRefresh = signUp.string("refreshToken")

            // The changer's connection, and another one that never learns the new tokens.
            let changer = try await RealtimeTestClient.connect(port: server.port)
            let other = try await RealtimeTestClient.connect(port: server.port)
            for client in [changer, other] {
                let auth = try await client.response(to: client.request("auth", #"{"cred":"\#(oldToken)"}"#))
                #expect(auth.body["s"] as? String == "ok")
                let listen = try await client.response(to: client.request("q", #"{"p":"/things","h":""}"#))
                #expect(listen.body["s"] as? String == "ok")
            }

            let update = try await accounts.call(
                "update",
                ["idToken": oldToken, "password": "another1", "returnSecureToken": true]
            )
            #expect(update.status == 200)
            let newToken = update.string("idToken")
            let newRefresh = update.string("refreshToken")
            #expect(!newToken.isEmpty && !newRefresh.isEmpty && newRefresh != oldRefresh)

            // As the SDK does once it has read the answer: re-authenticate with the new token.
            // Nothing revoked the connection before that.
            let reauth = try await changer.response(to: changer.request("auth", #"{"cred":"\#(newToken)"}"#))
            #expect(reauth.body["s"] as? String == "ok")
            #expect(reauth.pushes.map { $0["a"] as? String } == [])

            // The old credentials are refused at once everywhere else: REST, new connections,
            // the securetoken endpoint.
            #expect(try await accounts.readWith(oldToken).status == 401)
            let late = try await RealtimeTestClient.connect(port: server.port)
            let refused = try await late.response(to: late.request("auth", #"{"cred":"\#(oldToken)"}"#))
            #expect(refused.body["s"] as? String != "ok")
            await late.close()
            let oldRefreshed = try await accounts.refresh(oldRefresh)
            #expect(oldRefreshed.status == 400)
            #expect(oldRefreshed.errorMessage == "TOKEN_EXPIRED")

            // The refresh token of the answer works, and its ID token reads the database.
            let refreshed = try await accounts.refresh(newRefresh)
            #expect(refreshed.status == 200)
            let refreshedToken = refreshed.string("id_token")
            #expect(!refreshedToken.isEmpty)
            let read = try await server.send("GET", "/things.json?auth=\(refreshedToken)")
            #expect(read.status == 200)
            #expect(read.body == #"{"a":1}"#)

            // The connection left on the old token is revoked when the grace ends.
            let revoked = try await other.nextPush(timeout: .seconds(10))
            #expect(revoked["a"] as? String == "ac")
            #expect((revoked["b"] as? [String: Any])?["s"] as? String == "invalid_token")

            // The changer's connection is still signed in: it writes under the rules and its
            // listen still delivers.
            let write = try await changer.response(to: changer.request("p", #"{"p":"/things/b","d":2}"#))
            #expect(write.body["s"] as? String == "ok")
            #expect(!write.pushes.contains { $0["a"] as? String == "ac" || $0["a"] as? String == "c" })
            await changer.close()
            await other.close()
        }
    }
}
