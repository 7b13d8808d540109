import Crypto
import Foundation
import HearthAccounts
import Testing

/// The database (REST, WebSocket) and the accounts endpoints check ID tokens with one verifier:
/// a well-signed token without `exp`, without `iat`, or issued an hour ahead is refused by all
/// of them, and a good one (a little clock skew included) is accepted by all.
struct TokenChecksAgreeTests {
    /// A token of the test server's JWT secret with the claims of a sign-in of `uid` now (not
    /// before the account was created), `changes` applied (nil removes a claim).
    static func token(uid: String, _ changes: [String: Any?] = [:]) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        var claims: [String: Any] = [
            "user_id": uid, "sub": uid, "iat": now, "exp": now + 3600, "auth_time": now,
            "firebase": ["sign_in_provider": "password"],
        ]
        for (name, value) in changes { claims[name] = value }
        let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let signingInput = header + "." + Base64URL.encode(Array(payload))
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array(signingInput.utf8),
            using: SymmetricKey(data: Array(TestServer.jwtSecret.utf8))
        )
        return signingInput + "." + Base64URL.encode(Array(mac))
    }

    static let unparsable = #"{"error":"Could not parse auth token."}"#

    @Test func everyWayInRefusesTheSameTokens() async throws {
        try await AccountsClient.withServer { client in
            let uid = try await client.signUp("ada@example.com").string("localId")
            let now = Int64(Date().timeIntervalSince1970)
            let refused: [(String, String)] = [
                ("no exp", Self.token(uid: uid, ["exp": nil])),
                ("no iat", Self.token(uid: uid, ["iat": nil])),
                ("iat an hour ahead", Self.token(uid: uid, ["iat": now + 3600])),
            ]
            let realtime = try await RealtimeTestClient.connect(port: client.server.port)
            for (name, token) in refused {
                let read = try await client.readWith(token)
                #expect(read.status == 401, "\(name)")
                #expect(JSONCompare.equal(read.body, Self.unparsable), "\(name): \(read.body)")
                let lookup = try await client.call("lookup", ["idToken": token])
                #expect(lookup.status == 400, "\(name)")
                #expect(lookup.errorMessage == "INVALID_ID_TOKEN", "\(name): \(lookup.body)")
                let reply = try await realtime.response(to: realtime.request("auth", #"{"cred":"\#(token)"}"#))
                #expect(reply.body["s"] as? String == "invalid_token", "\(name)")
            }

            let expired = Self.token(uid: uid, ["exp": now - 5])
            let read = try await client.readWith(expired)
            #expect(JSONCompare.equal(read.body, #"{"error":"Auth token is expired."}"#), "\(read.body)")
            #expect(try await client.call("lookup", ["idToken": expired]).errorMessage == "TOKEN_EXPIRED")
            var reply = try await realtime.response(to: realtime.request("auth", #"{"cred":"\#(expired)"}"#))
            #expect(reply.body["s"] as? String == "expired_token")

            let skewed = Self.token(uid: uid, ["iat": now + 60])
            #expect(AuthTokenVerificationTests.accepted(try await client.readWith(skewed)))
            let lookup = try await client.call("lookup", ["idToken": skewed])
            #expect(lookup.status == 200, "\(lookup.body)")
            reply = try await realtime.response(to: realtime.request("auth", #"{"cred":"\#(skewed)"}"#))
            #expect(reply.body["s"] as? String == "ok")
            await realtime.close()
        }
    }
}
