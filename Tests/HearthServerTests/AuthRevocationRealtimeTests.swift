import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// A token revoked by the accounts store (password change, disable, delete) reaches live
/// connections: WebSocket `ac` (then the connection is anonymous and its listens are
/// re-checked), SSE `auth_revoked`.
struct AuthRevocationRealtimeTests {
    static let rules = #"{"rules": {"things": {".read": "auth != null", ".write": "auth != null"}}}"#

    @Test func aPasswordChangeRevokesLiveWebSocketAndSSESessions() async throws {
        try await AccountsClient.withServer(prepare: { configuration in
            try? Self.rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
            // This client never switches to the new tokens: it is revoked once the owner's grace
            // (PasswordChangeSessionTests) ends; a short one keeps the wait short.
            configuration.accounts.liveSessionGrace = .milliseconds(200)
            // No periodic tick within the test: the `ac` can only come from the revocation
            // itself (the ticker's tickAll), not from a session's next tick.
            configuration.realtime.tickInterval = .seconds(3600)
        }) { accounts in
            let server = accounts.server
            try await server.put("/things", #"{"a":1}"#)
            let signUp = try await accounts.signUp("ada@example.com")
            let token = signUp.string("idToken")

            let client = try await RealtimeTestClient.connect(port: server.port)
            let auth = try await client.response(to: client.request("auth", #"{"cred":"\#(token)"}"#))
            #expect(auth.body["s"] as? String == "ok")
            let listen = try await client.response(to: client.request("q", #"{"p":"/things","h":""}"#))
            #expect(listen.body["s"] as? String == "ok")

            let stream = try await SSETestStream.open(port: server.port, path: "/things.json?auth=\(token)")
            #expect(stream.status == 200)
            #expect(try await stream.nextData().name == "put")

            let update = try await accounts.call(
                "update",
                ["idToken": token, "password": "another1", "returnSecureToken": true]
            )
            #expect(update.status == 200)

            let revoked = try await client.nextPush(timeout: .seconds(5))
            #expect(revoked["a"] as? String == "ac")
            #expect((revoked["b"] as? [String: Any])?["s"] as? String == "invalid_token")
            // Anonymous now: the listen on /things is cancelled.
            let cancelled = try await client.nextPush(timeout: .seconds(5))
            #expect(cancelled["a"] as? String == "c")
            #expect((cancelled["b"] as? [String: Any])?["p"] as? String == "things")

            let event = try await stream.nextData(timeout: .seconds(5))
            #expect(event.name == "auth_revoked")
            try await stream.waitUntilEnded()

            // The old token is refused from now on; the new one works.
            #expect(try await accounts.readWith(token).status == 401)
            let fresh = update.string("idToken")
            #expect(try await server.send("GET", "/things.json?auth=\(fresh)").status == 200)
            await client.close()
        }
    }
}
