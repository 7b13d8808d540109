import Testing

/// Admin, anonymous, user, forged and expired credentials (rules are not evaluated yet: only
/// admin reads or writes).
struct RESTCredentialTests {
    static let data = [("/a", "1")]

    static let scenarios: [RESTScenario] = [
        .init("admin query", setup: data, "GET", "/a.json", auth: .admin, status: 200, expected: "1"),
        .init(
            "admin bearer",
            setup: data,
            "GET",
            "/a.json",
            auth: .bearer(TestServer.adminSecret),
            status: 200,
            expected: "1"
        ),
        .init(
            "anonymous read",
            setup: data,
            "GET",
            "/a.json",
            auth: .none,
            status: 401,
            error: "Permission denied"
        ),
        .init(
            "anonymous write",
            setup: data,
            "PUT",
            "/a.json",
            auth: .none,
            body: "2",
            status: 401,
            error: "Permission denied",
            after: data
        ),
        .init(
            "valid user token",
            setup: data,
            "GET",
            "/a.json",
            auth: .query(TokenMinter.token()),
            status: 401,
            error: "Permission denied"
        ),
        .init(
            "valid user bearer",
            setup: data,
            "GET",
            "/a.json",
            auth: .bearer(TokenMinter.token()),
            status: 401,
            error: "Permission denied"
        ),
        .init(
            "forged token",
            setup: data,
            "PUT",
            "/a.json",
            auth: .query(TokenMinter.token(secret: "wrong")),
            body: "2",
            status: 401,
            error: "Could not parse auth token.",
            after: data
        ),
        .init(
            "expired token",
            setup: data,
            "GET",
            "/a.json",
            auth: .bearer(TokenMinter.token(expiresIn: -10)),
            status: 401,
            error: "Auth token is expired."
        ),
        .init(
            "issued in the future",
            setup: data,
            "GET",
            "/a.json",
            auth: .bearer(TokenMinter.token(issuedAgo: -3600)),
            status: 401,
            error: "Could not parse auth token."
        ),
        .init(
            "unsigned token outside emulator",
            setup: data,
            "GET",
            "/a.json",
            auth: .bearer(TokenMinter.token(algorithm: "none")),
            status: 401,
            error: "Could not parse auth token."
        ),
        .init(
            "garbage token",
            setup: data,
            "GET",
            "/a.json",
            auth: .query("not-a-token"),
            status: 401,
            error: "Could not parse auth token."
        ),
        .init(
            "wrong scheme",
            setup: data,
            "GET",
            "/a.json",
            auth: .none,
            headers: [("Authorization", "Basic abc")],
            status: 401,
            error: "Could not parse auth token."
        ),
        .init(
            "owner outside emulator",
            setup: data,
            "GET",
            "/a.json",
            auth: .bearer("owner"),
            status: 401,
            error: "Could not parse auth token."
        ),
        // auth_variable_override: the admin acts as another `auth`; until rules are evaluated
        // that identity may not read or write.
        .init(
            "admin as a user via auth_variable_override",
            setup: data,
            "GET",
            "/a.json?auth_variable_override=%7B%22uid%22%3A%22alice%22%7D",
            auth: .admin,
            status: 401,
            error: "Permission denied"
        ),
        .init(
            "admin as anonymous via auth_variable_override",
            setup: data,
            "PUT",
            "/a.json?auth_variable_override=null",
            auth: .admin,
            body: "2",
            status: 401,
            error: "Permission denied",
            after: data
        ),
        .init(
            "auth_variable_override needs the admin",
            setup: data,
            "GET",
            "/a.json?auth_variable_override=%7B%22uid%22%3A%22alice%22%7D",
            auth: .bearer(TokenMinter.token()),
            status: 401,
            error: "auth_variable_override can only be used with the admin credential."
        ),
        .init(
            "auth_variable_override must be an object or null",
            setup: data,
            "GET",
            "/a.json?auth_variable_override=5",
            auth: .admin,
            status: 400,
            error: "Invalid auth_variable_override '5': use a JSON object (the auth variable) or null."
        ),
        .init(
            "rules need admin",
            "GET",
            "/.settings/rules.json",
            auth: .bearer(TokenMinter.token()),
            status: 401,
            error: "Permission denied"
        ),
    ]

    @Test(arguments: scenarios)
    func scenario(_ scenario: RESTScenario) async throws {
        try await TestServer.with { server in
            let problems = try await scenario.run(on: server)
            #expect(problems.isEmpty, "\(scenario.id): \(problems.joined(separator: "; "))")
        }
    }

    @Test func emulatorAcceptsOwnerAndUnsignedTokens() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in configuration.emulator = true },
            run: { server in
                let owner = try await server.send(
                    "PUT",
                    "/a.json",
                    headers: [("Authorization", "Bearer owner")],
                    text: "1"
                )
                #expect(owner.status == 200)
                let unsigned = try await server.send(
                    "GET",
                    "/a.json?auth=\(TokenMinter.token(algorithm: "none"))"
                )
                #expect(unsigned.status == 401)
                #expect(unsigned.body.contains("Permission denied"), "a verified user, refused by the missing rules")
                // An unsigned token's `exp` is not checked (the SDK's mockUserToken "expired" in 1970).
                let expired = try await server.send(
                    "GET",
                    "/a.json?auth=\(TokenMinter.token(expiresIn: -5, algorithm: "none"))"
                )
                #expect(expired.status == 401)
                #expect(expired.body.contains("Permission denied"), "a verified user: \(expired.body)")
            }
        )
    }
}
