import Crypto
import Foundation
import HearthAccounts
import HearthTestSupport
import Testing

/// Abuse: forged ID tokens (algorithm confusion, `alg: none`, expired, not yet valid, wrong
/// key, another project's audience or issuer, a payload swapped under a good signature) are
/// refused the same way over REST (`?auth=` and `Authorization: Bearer`), SSE and the
/// WebSocket `auth` request, never read as anonymous, while the control client keeps working.
struct AbuseTokenTests {
    /// A JWT with `header` and `claims`, signed HMAC-SHA256 with `key` (nil: no signature).
    static func jwt(header: String = #"{"alg":"HS256","typ":"JWT"}"#, _ claims: [String: Any], key: String?) -> String {
        let payload = try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload))
        guard let key else { return signingInput + "." }
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array(signingInput.utf8),
            using: SymmetricKey(data: Array(key.utf8))
        )
        return signingInput + "." + Base64URL.encode(Array(mac))
    }

    /// Claims of a sign-in of `ada` now, `changes` applied.
    static func claims(_ changes: [String: Any] = [:]) -> [String: Any] {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = [
            "user_id": "ada", "sub": "ada", "iat": now - 10, "exp": now + 3600, "auth_time": now - 10,
            "aud": "hearth", "iss": "https://securetoken.google.com/hearth",
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    struct Forgery: Sendable {
        let name: String
        let token: String
        /// The REST error and the WebSocket `auth` status it must get.
        let expired: Bool
    }

    static func forgeries() -> [Forgery] {
        let key = TestServer.jwtSecret
        let now = Int(Date().timeIntervalSince1970)
        let good = jwt(claims(), key: key)
        let goodParts = good.split(separator: ".")
        let admin = jwt(claims(["user_id": "admin", "sub": "admin"]), key: "not-the-key").split(separator: ".")
        return [
            Forgery(
                name: "RS256 header, HMAC signature",
                token: jwt(header: #"{"alg":"RS256"}"#, claims(), key: key),
                expired: false
            ),
            Forgery(name: "HS512 header", token: jwt(header: #"{"alg":"HS512"}"#, claims(), key: key), expired: false),
            Forgery(name: "alg none", token: jwt(header: #"{"alg":"none"}"#, claims(), key: nil), expired: false),
            Forgery(
                name: "alg None, signed",
                token: jwt(header: #"{"alg":"None"}"#, claims(), key: key),
                expired: false
            ),
            Forgery(name: "no alg", token: jwt(header: #"{"typ":"JWT"}"#, claims(), key: key), expired: false),
            Forgery(name: "wrong key", token: jwt(claims(), key: "another-key"), expired: false),
            Forgery(name: "empty key", token: jwt(claims(), key: ""), expired: false),
            Forgery(name: "expired", token: jwt(claims(["exp": now - 5, "iat": now - 4000]), key: key), expired: true),
            Forgery(name: "not valid yet", token: jwt(claims(["nbf": now + 3600]), key: key), expired: false),
            Forgery(name: "another project's audience", token: jwt(claims(["aud": "other"]), key: key), expired: false),
            Forgery(
                name: "another project's issuer",
                token: jwt(claims(["iss": "https://securetoken.google.com/other"]), key: key),
                expired: false
            ),
            Forgery(name: "payload swapped", token: "\(goodParts[0]).\(admin[1]).\(goodParts[2])", expired: false),
            Forgery(name: "signature dropped", token: "\(goodParts[0]).\(goodParts[1]).", expired: false),
            Forgery(name: "admin secret with a suffix", token: TestServer.adminSecret + "x", expired: false),
        ]
    }

    @Test func forgedTokensAreRefusedByEveryWayIn() async throws {
        try await AbuseServer.with { server, control in
            // The control token of the same shape is accepted: the forgeries fail for what they change.
            let good = Self.jwt(Self.claims(), key: TestServer.jwtSecret)
            #expect(try await server.send("GET", "/users/ada/secret.json?auth=\(good)").status == 200)

            let socket = try await RealtimeTestClient.connect(port: server.port)
            for forgery in Self.forgeries() {
                let error =
                    forgery.expired
                    ? #"{"error":"Auth token is expired."}"# : #"{"error":"Could not parse auth token."}"#
                let query = try await server.send("GET", "/users/ada/secret.json?auth=\(forgery.token)")
                #expect(query.status == 401, "\(forgery.name): \(query.status)")
                #expect(JSONCompare.equal(query.body, error), "\(forgery.name): \(query.body)")
                let bearer = try await server.send(
                    "GET",
                    "/users/ada/secret.json",
                    headers: [("Authorization", "Bearer \(forgery.token)")]
                )
                #expect(bearer.status == 401, "\(forgery.name) as a bearer: \(bearer.status)")
                let write = try await server.send("PUT", "/users/ada/x.json?auth=\(forgery.token)", text: "1")
                #expect(write.status == 401, "\(forgery.name) writing: \(write.status)")

                let stream = try await SSETestStream.open(
                    port: server.port,
                    path: "/users/ada.json?auth=\(forgery.token)"
                )
                #expect(stream.status == 401, "\(forgery.name) over SSE: \(stream.status)")
                stream.cancel()

                let reply = try await socket.response(to: socket.request("auth", #"{"cred":"\#(forgery.token)"}"#))
                let status = forgery.expired ? "expired_token" : "invalid_token"
                #expect(reply.body["s"] as? String == status, "\(forgery.name) over the WebSocket: \(reply.body)")
                // Still anonymous: the listen is denied.
                let listen = try await socket.response(to: socket.request("q", #"{"p":"/users/ada","h":""}"#))
                #expect(listen.body["s"] as? String == "permission_denied", "\(forgery.name): \(listen.body)")
            }
            #expect(try await server.get("/users/ada/x") == "null")
            await socket.close()
            try await control.check()
        }
    }
}
