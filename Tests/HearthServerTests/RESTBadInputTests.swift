import Testing

/// Refused input: 400 with a message naming the problem, and nothing written.
struct RESTBadInputTests {
    static let original = #"{"keep":1}"#
    static let unchanged = [("/a", original)]

    static let scenarios: [RESTScenario] = [
        .init(
            "malformed JSON",
            setup: unchanged,
            "PUT",
            "/a.json",
            body: #"{"x":"#,
            status: 400,
            after: unchanged
        ),
        .init(
            "trailing garbage",
            setup: unchanged,
            "PUT",
            "/a.json",
            body: "1 2",
            status: 400,
            after: unchanged
        ),
        .init(
            "invalid key in body",
            setup: unchanged,
            "PUT",
            "/a.json",
            body: #"{"b.c":1}"#,
            status: 400,
            contains: "b.c",
            after: unchanged
        ),
        .init(
            "invalid key in path",
            setup: unchanged,
            "PUT",
            "/a/b$c.json",
            body: "1",
            status: 400,
            contains: "b$c",
            after: unchanged
        ),
        .init(
            "invalid key in patch",
            setup: unchanged,
            "PATCH",
            "/a.json",
            body: #"{"x#y":1}"#,
            status: 400,
            contains: "x#y",
            after: unchanged
        ),
        .init(
            "patch not an object",
            setup: unchanged,
            "PATCH",
            "/a.json",
            body: "[1]",
            status: 400,
            after: unchanged
        ),
        .init(
            "patch overlapping paths",
            setup: unchanged,
            "PATCH",
            "/a.json",
            body: #"{"x":1,"x/y":2}"#,
            status: 400,
            after: unchanged
        ),
        .init(
            "too deep",
            setup: unchanged,
            "PUT",
            "/a.json",
            body: String(repeating: #"{"k":"#, count: 40) + "1" + String(repeating: "}", count: 40),
            status: 400,
            after: unchanged
        ),
        .init(
            "non-UTF-8 body",
            setup: unchanged,
            "PUT",
            "/a.json",
            rawBody: [0x22, 0xFF, 0xFE, 0x22],
            status: 400,
            after: unchanged
        ),
        .init(
            "invalid ns",
            setup: unchanged,
            "PUT",
            "/a.json?ns=bad_name",
            body: "1",
            status: 400,
            contains: "bad_name",
            after: unchanged
        ),
        .init(
            "ns too long",
            "GET",
            "/a.json?ns=" + String(repeating: "n", count: 64),
            status: 400,
            contains: "namespace"
        ),
        .init(
            "bad print",
            "GET",
            "/a.json?print=loud",
            status: 400,
            contains: "loud"
        ),
        .init(
            "bad format",
            "GET",
            "/a.json?format=xml",
            status: 400,
            contains: "xml"
        ),
        .init(
            "bad timeout",
            "GET",
            "/a.json?timeout=3h",
            status: 400,
            contains: "3h"
        ),
        .init(
            "timeout over 15min",
            "GET",
            "/a.json?timeout=16min",
            status: 400,
            contains: "16min"
        ),
        .init(
            "bad writeSizeLimit",
            setup: unchanged,
            "PUT",
            "/a.json?writeSizeLimit=huge",
            body: "1",
            status: 400,
            contains: "huge",
            after: unchanged
        ),
        .init(
            "writeSizeLimit tiny exceeded",
            setup: unchanged,
            "PUT",
            "/a.json?writeSizeLimit=tiny",
            body: "\"" + String(repeating: "x", count: 70_000) + "\"",
            status: 400,
            error: "Data to write exceeds the maximum size that can be modified with a single request.",
            after: unchanged
        ),
        .init(
            "bad method override",
            setup: unchanged,
            "POST",
            "/a.json",
            headers: [("X-HTTP-Method-Override", "TRUNCATE")],
            body: "1",
            status: 400,
            contains: "TRUNCATE",
            after: unchanged
        ),
        .init(
            "bad priority",
            setup: unchanged,
            "PUT",
            "/a/.priority.json",
            body: "true",
            status: 400,
            after: unchanged
        ),
        .init(
            "bad server value",
            setup: unchanged,
            "PUT",
            "/a.json",
            body: #"{".sv":"bogus"}"#,
            status: 400,
            after: unchanged
        ),
        .init("missing .json", "GET", "/a", status: 404),
        .init("unsupported method", "HEAD", "/a.json", status: 405),
    ]

    @Test(arguments: scenarios)
    func scenario(_ scenario: RESTScenario) async throws {
        try await TestServer.with { server in
            let problems = try await scenario.run(on: server)
            #expect(problems.isEmpty, "\(scenario.id): \(problems.joined(separator: "; "))")
        }
    }

    /// Sent raw: HTTP clients would re-encode these targets.
    @Test(arguments: [
        "/a/%FF.json", "/a/%zz.json", "/a/%4.json", "/a.json?ns=%FF", "/a.json?orderBy=%E0%80",
    ])
    func malformedTargetIsRefused(_ target: String) async throws {
        try await TestServer.with { server in
            try await server.put("/a", Self.original)
            let separator = target.contains("?") ? "&" : "?"
            let (status, body) = try await RawHTTP.send(
                port: server.port,
                method: "PUT",
                target: target + separator + "auth=\(TestServer.adminSecret)",
                body: "1"
            )
            #expect(status == 400, "\(target): \(body)")
            #expect(body.contains("percent-encoded UTF-8"), "\(target): \(body)")
            #expect(JSONCompare.equal(try await server.get("/a"), Self.original))
        }
    }

    @Test func oversizedBodyIsRefused() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in configuration.maxRequestBodyBytes = 1000 },
            run: { server in
                try await server.put("/a", Self.original)
                let big = "\"" + String(repeating: "x", count: 5000) + "\""
                let reply = try await server.send("PUT", "/a.json?auth=\(TestServer.adminSecret)", text: big)
                // 413, not 400, since issue 13 (item 8: "413 as soon as it is passed").
                #expect(reply.status == 413)
                #expect(reply.body.contains("1000"))
                #expect(JSONCompare.equal(try await server.get("/a"), Self.original))
            }
        )
    }
}
