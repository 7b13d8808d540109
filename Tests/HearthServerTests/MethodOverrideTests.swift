import Testing

/// `X-HTTP-Method-Override` (header) and `x-http-method-override` (query) are honoured on `POST`
/// only, as Firebase documents them; any other request keeps its method, so a `GET` never
/// changes data.
struct MethodOverrideTests {
    static let scenarios: [RESTScenario] = [
        .init(
            "GET with a DELETE header override reads",
            setup: [("/a", #"{"x":1}"#)],
            "GET",
            "/a.json",
            headers: [("X-HTTP-Method-Override", "DELETE")],
            status: 200,
            expected: #"{"x":1}"#,
            after: [("/a", #"{"x":1}"#)]
        ),
        .init(
            "GET with a DELETE query override reads",
            setup: [("/a", #"{"x":1}"#)],
            "GET",
            "/a.json?x-http-method-override=DELETE",
            status: 200,
            expected: #"{"x":1}"#,
            after: [("/a", #"{"x":1}"#)]
        ),
        .init(
            "GET with a PUT override and a body reads",
            setup: [("/a", "1")],
            "GET",
            "/a.json?x-http-method-override=PUT",
            body: "2",
            status: 200,
            expected: "1",
            after: [("/a", "1")]
        ),
        .init(
            "GET with a PATCH header override reads",
            setup: [("/a", #"{"x":1}"#)],
            "GET",
            "/a.json",
            headers: [("X-HTTP-Method-Override", "PATCH")],
            body: #"{"x":2}"#,
            status: 200,
            expected: #"{"x":1}"#,
            after: [("/a", #"{"x":1}"#)]
        ),
        .init(
            "GET with an unknown override is a plain read",
            setup: [("/a", "1")],
            "GET",
            "/a.json",
            headers: [("X-HTTP-Method-Override", "TRUNCATE")],
            status: 200,
            expected: "1"
        ),
        .init(
            "PUT with a DELETE override puts",
            setup: [("/a", "1")],
            "PUT",
            "/a.json",
            headers: [("X-HTTP-Method-Override", "DELETE")],
            body: "3",
            status: 200,
            expected: "3",
            after: [("/a", "3")]
        ),
        .init(
            "DELETE with a GET override deletes",
            setup: [("/a", "1")],
            "DELETE",
            "/a.json?x-http-method-override=GET",
            status: 200,
            expected: "null",
            after: [("/a", "null")]
        ),
        .init(
            "POST with a DELETE query override deletes",
            setup: [("/a", "1")],
            "POST",
            "/a.json?x-http-method-override=DELETE",
            status: 200,
            expected: "null",
            after: [("/a", "null")]
        ),
        .init(
            "POST with a PATCH header override patches",
            setup: [("/a", #"{"x":1,"y":1}"#)],
            "POST",
            "/a.json",
            headers: [("X-HTTP-Method-Override", "PATCH")],
            body: #"{"x":2}"#,
            status: 200,
            expected: #"{"x":2}"#,
            after: [("/a", #"{"x":2,"y":1}"#)]
        ),
        .init(
            "POST with a GET override reads",
            setup: [("/a", "1")],
            "POST",
            "/a.json?x-http-method-override=GET",
            status: 200,
            expected: "1",
            after: [("/a", "1")]
        ),
    ]

    @Test(arguments: scenarios)
    func scenario(_ scenario: RESTScenario) async throws {
        try await TestServer.with { server in
            let problems = try await scenario.run(on: server)
            #expect(problems.isEmpty, "\(scenario.id): \(problems.joined(separator: "; "))")
        }
    }

    /// Rules still judge the read: an anonymous GET with an override is a refused read, and
    /// nothing changes.
    @Test func anAnonymousGetWithADeleteOverrideChangesNothing() async throws {
        try await TestServer.with { server in
            try await server.put("/a", "1")
            let reply = try await server.send("GET", "/a.json?x-http-method-override=DELETE")
            #expect(reply.status == 401)
            #expect(try await server.get("/a") == "1")
        }
    }
}
