import Foundation
import Testing

@testable import HearthServer

/// Query strings decode as HTML forms encode them (`+` is a space, `%2B` a plus), as browsers'
/// forms, Python's `requests`, Java's `URLEncoder` and Node's `URLSearchParams` send them, on
/// every way in (REST, SSE, the WebSocket upgrade, the accounts endpoints: one parser). Paths
/// are not form-decoded: `+` in a path is a plus.
struct RESTFormDecodingTests {
    static let rules = """
        {
          "rules": {
            ".read": "auth != null && auth.uid == 'ada lovelace'",
            "people": {".indexOn": ["name"]}
          }
        }
        """

    static let people =
        #"{"p1":{"name":"Ada Lovelace"},"p2":{"name":"Ada+Lovelace"},"p3":{"name":"Grace"},"n":{"name":100}}"#

    static let scenarios: [RESTScenario] = [
        .init(
            "equalTo with + for its space (requests, URLEncoder)",
            setup: [("/people", people)],
            "GET",
            "/people.json?orderBy=%22name%22&equalTo=%22Ada+Lovelace%22",
            status: 200,
            expected: #"{"p1":{"name":"Ada Lovelace"}}"#
        ),
        .init(
            "equalTo with %2B for its plus",
            setup: [("/people", people)],
            "GET",
            "/people.json?orderBy=%22name%22&equalTo=%22Ada%2BLovelace%22",
            status: 200,
            expected: #"{"p2":{"name":"Ada+Lovelace"}}"#
        ),
        .init(
            "orderBy path with + for its space",
            setup: [("/c", #"{"x":{"first name":"b"},"y":{"first name":"a"}}"#)],
            "GET",
            "/c.json?orderBy=%22first+name%22&limitToFirst=1",
            status: 400,
            contains: "first name"
        ),
        .init(
            "a number with an exponent sent as a form encodes it",
            setup: [("/people", people)],
            "GET",
            "/people.json?orderBy=%22name%22&equalTo=1e%2B2",
            status: 200,
            expected: #"{"n":{"name":100}}"#
        ),
        .init(
            "a raw + in a number is a space, so not a number",
            setup: [("/people", people)],
            "GET",
            "/people.json?orderBy=%22name%22&equalTo=1e+2",
            status: 400,
            contains: "equalTo"
        ),
        .init(
            "auth_variable_override as requests sends {\"uid\": \"ada lovelace\"}",
            setup: [("/a", "1")],
            "GET",
            "/a.json?auth_variable_override=%7B%22uid%22%3A+%22ada+lovelace%22%7D",
            status: 200,
            expected: "1"
        ),
        .init(
            "auth_variable_override decoded, then judged by the rules",
            setup: [("/a", "1")],
            "GET",
            "/a.json?auth_variable_override=%7B%22uid%22%3A+%22ada%2Blovelace%22%7D",
            status: 401,
            error: "Permission denied"
        ),
    ]

    @Test(arguments: scenarios)
    func scenario(_ scenario: RESTScenario) async throws {
        try await TestServer.with(rules: Self.rules) { server in
            let problems = try await scenario.run(on: server)
            #expect(problems.isEmpty, "\(scenario.id): \(problems.joined(separator: "; "))")
        }
    }

    @Test func aPlusInThePathIsAPlus() async throws {
        try await TestServer.with { server in
            try await server.put("/c++/a+b", "1")
            let root = try await server.get("/", query: "&shallow=true")
            let child = try await server.get("/c++", query: "&shallow=true")
            #expect(JSONCompare.equal(root, #"{"c++":true}"#), "\(root)")
            #expect(JSONCompare.equal(child, #"{"a+b":1}"#), "\(child)")
            #expect(try await server.get("/c++/a+b") == "1")
            #expect(try await server.get("/c  /a b") == "null")
        }
    }

    @Test func eventStreamsDecodeTheirQueryAsAForm() async throws {
        try await TestServer.with(rules: Self.rules) { server in
            try await server.put("/people", Self.people)
            let stream = try await SSETestStream.open(
                port: server.port,
                path: "/people.json?orderBy=%22name%22&equalTo=%22Ada+Lovelace%22"
                    + "&auth_variable_override=%7B%22uid%22%3A+%22ada+lovelace%22%7D&auth=\(TestServer.adminSecret)"
            )
            #expect(stream.status == 200)
            let event = try await stream.nextData()
            #expect(event.name == "put")
            #expect(JSONCompare.equal(event.data, #"{"path":"/","data":{"p1":{"name":"Ada Lovelace"}}}"#))
        }
    }

    /// The one parser every way in uses (the WebSocket upgrade's `v` and `ns` and the accounts
    /// endpoints' `key` go through it too; none of their valid values holds a space or a plus).
    @Test(arguments: [
        ("a=b+c", "a", "b c"),
        ("a=b%2Bc", "a", "b+c"),
        ("a+b=1", "a b", "1"),
        ("a=%22x+y%22", "a", "\"x y\""),
        ("a=++", "a", "  "),
        ("a=1e%2B5", "a", "1e+5"),
    ])
    func queryStringsDecodeAsForms(raw: String, name: String, value: String) throws {
        let query = try QueryString(Substring(raw))
        #expect(query[name] == value)
    }

    @Test func pathsAreNotFormDecoded() {
        #expect(PercentDecoding.decode("a+b%2Bc") == "a+b+c")
    }
}
