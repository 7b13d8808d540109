import Foundation
import HearthAccounts
import HearthServer
import HearthTestSupport
import Testing

/// ID tokens name a Firebase project (`aud`, `iss`): the server accepts its own project's
/// (`--project-id`, default `hearth`), refuses another's, and under `--emulator` accepts every
/// project's and the SDKs' unsigned `mockUserToken` (`iat` 0, "expired" in 1970), as Firebase's
/// emulators do. Every way a credential comes in answers alike: REST (`?auth=` and `Bearer`),
/// SSE, the WebSocket `auth` request, callables and the accounts endpoints.
struct ProjectTokenTests {
    static let rules = #"{"rules": {"users": {"$uid": {".read": "auth.uid == $uid", ".write": "auth.uid == $uid"}}}}"#

    /// An HS256 token of `project` for `uid`, signed with the server's JWT secret, as an app's
    /// own token service (or pyrebase's custom flow) mints it.
    static func signed(uid: String, project: String) -> String {
        let now = Int(Date().timeIntervalSince1970)
        return AbuseTokenTests.jwt(
            [
                "user_id": uid, "sub": uid, "iat": now, "exp": now + 3600, "auth_time": now,
                "aud": project, "iss": "https://securetoken.google.com/\(project)",
                "firebase": ["sign_in_provider": "password"],
            ],
            key: TestServer.jwtSecret
        )
    }

    /// The JS SDK's `mockUserToken` for `uid` in an app of `project` (firebase-js-sdk
    /// `createMockUserToken`: header `{"alg":"none","type":"JWT"}`, no signature).
    static func mock(uid: String, project: String) -> String {
        AbuseTokenTests.jwt(
            header: #"{"alg":"none","type":"JWT"}"#,
            [
                "iss": "https://securetoken.google.com/\(project)", "aud": project, "iat": 0, "exp": 3600,
                "auth_time": 0, "sub": uid, "user_id": uid,
                "firebase": ["sign_in_provider": "custom", "identities": [String: Any]()],
            ],
            key: nil
        )
    }

    /// What each way in answered a token: true where it was accepted as `uid`.
    struct Verdicts: Equatable, CustomStringConvertible {
        var restQuery = false
        var restBearer = false
        var sse = false
        var webSocket = false
        var callable = false
        var accounts = false

        static let all = Verdicts(
            restQuery: true,
            restBearer: true,
            sse: true,
            webSocket: true,
            callable: true,
            accounts: true
        )
        static let none = Verdicts()

        var description: String {
            "REST ?auth \(restQuery), Bearer \(restBearer), SSE \(sse), WebSocket \(webSocket), "
                + "callable \(callable), accounts \(accounts)"
        }
    }

    /// Presents `token` (of the signed-up user `uid`) on every way in.
    static func verdicts(_ token: String, uid: String, accounts: AccountsClient) async throws -> Verdicts {
        let server = accounts.server
        var verdicts = Verdicts()
        let query = try await server.send("GET", "/users/\(uid).json?auth=\(token)")
        verdicts.restQuery = query.status == 200
        #expect(verdicts.restQuery || query.status == 401, "\(query.status) \(query.body)")
        let bearer = try await server.send("GET", "/users/\(uid).json", headers: [("Authorization", "Bearer \(token)")])
        verdicts.restBearer = bearer.status == 200
        let stream = try await SSETestStream.open(port: server.port, path: "/users/\(uid).json?auth=\(token)")
        verdicts.sse = stream.status == 200
        if verdicts.sse { #expect(try await stream.nextData().name == "put") }
        stream.cancel()
        let socket = try await RealtimeTestClient.connect(port: server.port)
        let auth = try await socket.response(to: socket.request("auth", #"{"cred":"\#(token)"}"#))
        if auth.body["s"] as? String == "ok" {
            let listen = try await socket.response(to: socket.request("q", #"{"p":"/users/\#(uid)","h":""}"#))
            verdicts.webSocket = listen.body["s"] as? String == "ok"
        } else {
            #expect(auth.body["s"] as? String == "invalid_token", "\(auth.body)")
        }
        await socket.close()
        let call = try await server.send(
            "POST",
            "/functions/echo",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            text: #"{"data":1}"#
        )
        verdicts.callable = call.status == 200 && call.body.contains(#""caller":"\#(uid)""#)
        #expect(verdicts.callable || call.status == 401, "\(call.status) \(call.body)")
        let lookup = try await accounts.call("lookup", ["idToken": token])
        verdicts.accounts = lookup.status == 200
        #expect(verdicts.accounts || lookup.errorMessage == "INVALID_ID_TOKEN", "\(lookup.status) \(lookup.body)")
        if verdicts.accounts { #expect(lookup.body.contains(uid)) }
        return verdicts
    }

    /// A server with `project` (nil: the default) and `emulator`, a signed-up user, and `body`.
    static func with(
        project: String?,
        emulator: Bool,
        _ body: (AccountsClient, String) async throws -> Void
    ) async throws {
        try await AccountsClient.withServer(prepare: { configuration in
            if let project { configuration.accounts.projectID = project }
            configuration.emulator = emulator
            try? rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
            try? CallableFixtures.register(&configuration)
        }) { accounts in
            let uid = try await accounts.signUp("ada@example.com").string("localId")
            try await body(accounts, uid)
        }
    }

    @Test func theDefaultProjectIsHearthAndAnotherProjectsTokensAreRefusedEverywhere() async throws {
        try await Self.with(project: nil, emulator: false) { accounts, uid in
            let ours = try await Self.verdicts(Self.signed(uid: uid, project: "hearth"), uid: uid, accounts: accounts)
            #expect(ours == .all, "\(ours)")
            let other = try await Self.verdicts(
                Self.signed(uid: uid, project: "my-chat-app"),
                uid: uid,
                accounts: accounts
            )
            #expect(other == .none, "\(other)")
            let mock = try await Self.verdicts(Self.mock(uid: uid, project: "hearth"), uid: uid, accounts: accounts)
            #expect(mock == .none, "unsigned without --emulator: \(mock)")
        }
    }

    @Test func theServersProjectIDNamesTheTokensItAccepts() async throws {
        try await Self.with(project: "my-chat-app", emulator: false) { accounts, uid in
            let ours = try await Self.verdicts(
                Self.signed(uid: uid, project: "my-chat-app"),
                uid: uid,
                accounts: accounts
            )
            #expect(ours == .all, "\(ours)")
            let hearth = try await Self.verdicts(Self.signed(uid: uid, project: "hearth"), uid: uid, accounts: accounts)
            #expect(hearth == .none, "\(hearth)")
            // The tokens the server signs name its project, and are accepted.
            let signIn = try await accounts.call(
                "signInWithPassword",
                ["email": "ada@example.com", "password": "secret1", "returnSecureToken": true]
            )
            let token = signIn.string("idToken")
            let claims = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(Base64URL.decode(token.split(separator: ".")[1]) ?? [])
                ) as? [String: Any]
            )
            #expect(claims["aud"] as? String == "my-chat-app")
            #expect(claims["iss"] as? String == "https://securetoken.google.com/my-chat-app")
            #expect(try await Self.verdicts(token, uid: uid, accounts: accounts) == .all)
        }
    }

    @Test func theEmulatorAcceptsEveryProjectsTokensAndTheSDKsMockTokens() async throws {
        try await Self.with(project: nil, emulator: true) { accounts, uid in
            for project in ["my-chat-app", "hearth", "demo-test"] {
                let signed = try await Self.verdicts(
                    Self.signed(uid: uid, project: project),
                    uid: uid,
                    accounts: accounts
                )
                #expect(signed == .all, "HS256 of \(project): \(signed)")
                let mock = try await Self.verdicts(Self.mock(uid: uid, project: project), uid: uid, accounts: accounts)
                #expect(mock == .all, "mockUserToken of \(project): \(mock)")
            }
            // A signed token is still checked: another key, or expired, is refused.
            let forged = AbuseTokenTests.jwt(
                AbuseTokenTests.claims(["user_id": uid, "sub": uid, "aud": "my-chat-app"]),
                key: "another-key"
            )
            #expect(try await Self.verdicts(forged, uid: uid, accounts: accounts) == .none)
            let now = Int(Date().timeIntervalSince1970)
            let expired = AbuseTokenTests.jwt(
                AbuseTokenTests.claims(["user_id": uid, "sub": uid, "exp": now - 5, "iat": now - 4000]),
                key: TestServer.jwtSecret
            )
            let refused = try await accounts.server.send("GET", "/users/\(uid).json?auth=\(expired)")
            #expect(refused.status == 401)
            #expect(JSONCompare.equal(refused.body, #"{"error":"Auth token is expired."}"#))
        }
    }

    /// A mock token "expired" in 1970 does not expire a realtime session: its listen keeps
    /// receiving across the server's ticks (which end sessions whose credential expired).
    @Test func aMockTokensSessionDoesNotExpire() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.emulator = true
            configuration.realtime.tickInterval = .milliseconds(20)
            try Self.rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
        }) { server in
            let socket = try await RealtimeTestClient.connect(port: server.port)
            let auth = try await socket.response(
                to: socket.request("auth", #"{"cred":"\#(Self.mock(uid: "ada", project: "my-chat-app"))"}"#)
            )
            #expect(auth.body["s"] as? String == "ok")
            let listen = try await socket.response(to: socket.request("q", #"{"p":"/users/ada","h":""}"#))
            #expect(listen.body["s"] as? String == "ok")
            for value in 1...5 {
                try await server.put("/users/ada/n", "\(value)")
                let push = try await socket.nextPush()
                #expect(push["a"] as? String == "d", "still listening, not revoked: \(push)")
            }
            await socket.close()
        }
    }
}
