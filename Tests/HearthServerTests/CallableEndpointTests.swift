import Foundation
import HearthFunctions
import HearthServer
import Testing

/// Callables over HTTP as the Firebase SDKs call them: URLs, envelopes and statuses,
/// credentials, CORS, namespaces and malformed requests, on a real server.
@Suite struct CallableEndpointTests {
    static func withServer(
        prepare: @escaping (inout HearthServerConfiguration) -> Void = { _ in },
        run body: (CallableClient) async throws -> Void
    ) async throws {
        try await TestServer.with(
            prepare: { configuration, _ in
                try CallableFixtures.register(&configuration)
                prepare(&configuration)
            },
            run: { server in try await body(CallableClient(server: server)) }
        )
    }

    @Test(arguments: ["/functions/echo", "/demo-project/us-central1/echo"])
    func bothURLFormsAnswerTheResultEnvelope(_ path: String) async throws {
        try await Self.withServer { client in
            let reply = try await client.call("echo", data: #"{"n":1,"list":["a",true,null]}"#, path: path)
            #expect(reply.status == 200)
            #expect(reply.headers.first(name: "content-type") == "application/json; charset=utf-8")
            #expect(
                JSONCompare.equal(
                    reply.body,
                    #"{"result":{"data":{"n":1,"list":["a",true,null]},"caller":"alice","ns":"default"}}"#
                ),
                "\(reply.body)"
            )
        }
    }

    /// Firebase's mapping of statuses to HTTP codes (what the SDKs map back).
    @Test(arguments: [
        ("INVALID_ARGUMENT", 400), ("FAILED_PRECONDITION", 400), ("OUT_OF_RANGE", 400), ("UNAUTHENTICATED", 401),
        ("PERMISSION_DENIED", 403), ("NOT_FOUND", 404), ("ALREADY_EXISTS", 409), ("ABORTED", 409),
        ("RESOURCE_EXHAUSTED", 429), ("CANCELLED", 499), ("UNIMPLEMENTED", 501), ("UNAVAILABLE", 503),
        ("DEADLINE_EXCEEDED", 504), ("UNKNOWN", 500), ("DATA_LOSS", 500),
    ])
    func errorsAnswerTheirStatusAndMessage(_ status: String, _ code: Int) async throws {
        try await Self.withServer { client in
            let reply = try await client.call("fail", data: #"{"status":"\#(status)","message":"'x' is wrong"}"#)
            #expect(reply.status == code)
            #expect(reply.headers.first(name: "retry-after") == (status == "UNAVAILABLE" ? "1" : nil))
            #expect(
                JSONCompare.equal(reply.body, #"{"error":{"status":"\#(status)","message":"'x' is wrong"}}"#),
                "\(reply.body)"
            )
        }
    }

    @Test func anInternalErrorHidesItsCause() async throws {
        try await Self.withServer { client in
            let reply = try await client.call("fail", data: #"{"status":"INTERNAL","message":"disk /secret failed"}"#)
            #expect(reply.status == 500)
            #expect(JSONCompare.equal(reply.body, #"{"error":{"status":"INTERNAL","message":"INTERNAL"}}"#))
        }
    }

    @Test func callersWithoutAValidCredentialAreUnauthenticated() async throws {
        try await Self.withServer { client in
            let cases: [(String, String?, String)] = [
                ("none", nil, "Callable functions need a signed-in caller"),
                ("garbage", "not-a-token", "Could not parse auth token."),
                ("forged", TokenMinter.token(uid: "alice", secret: "other-secret"), "Could not parse auth token."),
                ("expired", TokenMinter.token(uid: "alice", expiresIn: -60, issuedAgo: 7200), "Auth token is expired."),
                ("unsigned", TokenMinter.token(uid: "alice", algorithm: "none"), "Could not parse auth token."),
            ]
            for (id, token, message) in cases {
                let reply = try await client.call("echo", token: token)
                #expect(reply.status == 401, "\(id): \(reply.body)")
                #expect(reply.body.contains(#""status":"UNAUTHENTICATED""#), "\(id): \(reply.body)")
                #expect(reply.body.contains(message), "\(id): \(reply.body)")
            }
            // The admin credential is a caller too (with no uid).
            let admin = try await client.call("echo", token: TestServer.adminSecret)
            #expect(admin.status == 200)
            #expect(admin.body.contains(#""caller":"admin""#))
        }
    }

    /// A signed-in account's token works until the account is deleted or disabled.
    @Test func deletedAndDisabledAccountsAreUnauthenticated() async throws {
        try await AccountsClient.withServer(prepare: { try? CallableFixtures.register(&$0) }) { accounts in
            let client = CallableClient(server: accounts.server)
            let deletedToken = try await accounts.signUp("ada@example.com").string("idToken")
            let disabled = try await accounts.signUp("bob@example.com")
            let disabledToken = disabled.string("idToken")
            #expect(try await client.call("echo", token: deletedToken).status == 200)
            #expect(try await client.call("echo", token: disabledToken).status == 200)
            #expect(try await accounts.call("delete", ["idToken": deletedToken]).status == 200)
            let disable = try await accounts.call(
                "update",
                ["localId": disabled.string("localId"), "disableUser": true],
                headers: [("Authorization", "Bearer \(TestServer.adminSecret)")]
            )
            #expect(disable.status == 200, "\(disable.body)")
            for token in [deletedToken, disabledToken] {
                let reply = try await client.call("echo", token: token)
                #expect(reply.status == 401)
                #expect(reply.body.contains(#""status":"UNAUTHENTICATED""#), "\(reply.body)")
                #expect(reply.body.contains("Auth token is revoked"), "\(reply.body)")
            }
        }
    }

    @Test func corsPreflightAndHeadersAsForREST() async throws {
        try await Self.withServer { client in
            let preflight = try await client.server.send(
                "OPTIONS",
                "/demo-project/us-central1/echo",
                headers: [
                    ("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST"),
                    ("Access-Control-Request-Headers", "authorization,content-type"),
                ]
            )
            #expect(preflight.status == 200)
            #expect(preflight.headers.first(name: "access-control-allow-origin") == "*")
            #expect(preflight.headers.first(name: "access-control-allow-methods")?.contains("POST") == true)
            #expect(preflight.headers.first(name: "access-control-allow-headers") == "authorization,content-type")
            let answered = try await client.call("echo", headers: [("Content-Type", "application/json")])
            #expect(answered.headers.first(name: "access-control-allow-origin") == "*")
            let refused = try await client.call("echo", token: nil)
            #expect(refused.headers.first(name: "access-control-allow-origin") == "*")
        }
        try await Self.withServer(prepare: { $0.corsAllowedOrigin = "https://app.example" }) { client in
            let answered = try await client.call("echo")
            #expect(answered.headers.first(name: "access-control-allow-origin") == "https://app.example")
        }
    }

    @Test func theNamespaceParameterSelectsWhereTheCallableRuns() async throws {
        try await Self.withServer { client in
            let chat = try await client.call("echo", ns: "chat")
            #expect(chat.status == 200)
            #expect(chat.body.contains(#""ns":"chat""#))
            let elsewhere = try await client.call("echo", ns: "scratch")
            #expect(elsewhere.status == 404)
            #expect(
                JSONCompare.equal(
                    elsewhere.body,
                    #"{"error":{"status":"NOT_FOUND","message":"No function named 'echo' is served in namespace 'scratch'."}}"#
                ),
                "\(elsewhere.body)"
            )
            let invalid = try await client.call("echo", ns: "a.b")
            #expect(invalid.status == 400)
            #expect(invalid.body.contains("Invalid namespace 'a.b'"))
            let unknown = try await client.call("nope", path: "/p/r/nope")
            #expect(unknown.status == 404)
            #expect(unknown.body.contains("No function named 'nope'"))
        }
    }

    /// Bodies and methods Firebase's callable protocol refuses: 400 `INVALID_ARGUMENT` naming
    /// the problem.
    @Test(arguments: [
        ("not JSON", "{data:", "application/json", "not valid JSON"),
        ("an array", "[1]", "application/json", "must be a JSON object"),
        ("no data", #"{"date":1}"#, "application/json", "unexpected field 'date'"),
        ("empty object", "{}", "application/json", "has no 'data' field"),
        ("extra field", #"{"data":1,"x":2}"#, "application/json", "unexpected field 'x'"),
        (
            "form", #"{"data":1}"#, "application/x-www-form-urlencoded",
            "Content-Type is 'application/x-www-form-urlencoded'"
        ),
        ("bad @type", #"{"data":{"@type":"x.Y","value":"1"}}"#, "application/json", "Unsupported '@type' in 'data'"),
        (
            "bad long", #"{"data":[{"@type":"type.googleapis.com/google.protobuf.Int64Value","value":"z"}]}"#,
            "application/json", "Invalid long integer in 'data[0]'"
        ),
    ])
    func malformedBodiesAreInvalidArguments(
        _ id: String,
        _ body: String,
        _ type: String,
        _ message: String
    ) async throws {
        try await Self.withServer { client in
            let reply = try await client.server.send(
                "POST",
                "/functions/echo",
                headers: [("Content-Type", type), ("Authorization", "Bearer \(TokenMinter.token())")],
                text: body
            )
            #expect(reply.status == 400, "\(id): \(reply.body)")
            #expect(reply.body.contains(#""status":"INVALID_ARGUMENT""#), "\(id): \(reply.body)")
            #expect(reply.body.contains(message), "\(id): \(reply.body)")
        }
    }

    @Test func otherMethodsAreRefusedAsFirebaseDoes() async throws {
        try await Self.withServer { client in
            let reply = try await client.server.send("GET", "/functions/echo")
            #expect(reply.status == 400)
            #expect(reply.body.contains("called with POST, not GET"))
        }
    }

    /// The SDKs' encoding of long integers decodes to numbers; a charset parameter is fine.
    @Test func longIntegersArriveAsNumbers() async throws {
        try await Self.withServer { client in
            let long = #"{"@type":"type.googleapis.com/google.protobuf.Int64Value","value":"1234567890123"}"#
            let reply = try await client.call(
                "echo",
                data: #"{"n":\#(long)}"#,
                headers: [("Content-Type", "application/json; charset=utf-8")]
            )
            #expect(reply.status == 200)
            #expect(reply.body.contains(#""data":{"n":1234567890123}"#), "\(reply.body)")
        }
    }

    /// A body over the limit is refused on its announced length, before it is sent, and the
    /// connection closes instead of reading the rest.
    @Test func anOversizedBodyIsRefusedBeforeItIsRead() async throws {
        try await Self.withServer(prepare: { $0.maxCallableBodyBytes = 1000 }) { client in
            let length = 50 << 20
            let token = TokenMinter.token()
            let (response, sent, closed) = try await onThread {
                let connection = try RawConnection(port: client.server.port)
                connection.send(
                    "POST /functions/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Authorization: Bearer \(token)\r\nContent-Length: \(length)\r\n\r\n"
                )
                let sent = connection.sendBody(count: length)
                let response = try connection.readResponse(timeout: .seconds(10))
                try connection.waitForClose(timeout: .seconds(10))
                return (response, sent, connection.ended)
            }
            #expect(response?.status == 400)
            #expect(response?.body.contains("larger than 1000 bytes") == true)
            #expect(sent < length)
            #expect(closed)
            // A chunked body (no length announced) is cut off once the bytes read pass the limit.
            let chunked = try await onThread { () -> RawConnection.Response? in
                let connection = try RawConnection(port: client.server.port)
                connection.send(
                    "POST /functions/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Authorization: Bearer \(token)\r\nTransfer-Encoding: chunked\r\n\r\n"
                )
                for _ in 0..<3 { connection.send("258\r\n" + String(repeating: "x", count: 600) + "\r\n") }
                return try connection.readResponse(timeout: .seconds(10))
            }
            #expect(chunked?.status == 400)
            #expect(chunked?.body.contains("larger than 1000 bytes") == true)
        }
    }
}
