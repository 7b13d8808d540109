import Testing

/// GET, PUT, POST, PATCH, DELETE and the output parameters.
struct RESTMethodTests {
    static let scenarios: [RESTScenario] = [
        .init("get missing is null", "GET", "/nothing.json", status: 200, expected: "null"),
        .init(
            "put answers the data",
            "PUT",
            "/users/alice.json",
            body: #"{"name":"Alice","age":30}"#,
            status: 200,
            expected: #"{"name":"Alice","age":30}"#,
            after: [("/users", #"{"alice":{"name":"Alice","age":30}}"#)]
        ),
        .init(
            "put leaf",
            "PUT",
            "/a/b.json",
            body: "5",
            status: 200,
            expected: "5",
            after: [("/a", #"{"b":5}"#)]
        ),
        .init(
            "put null deletes",
            setup: [("/a", #"{"b":1,"c":2}"#)],
            "PUT",
            "/a/b.json",
            body: "null",
            status: 200,
            expected: "null",
            after: [("/a", #"{"c":2}"#)]
        ),
        .init(
            "get subtree",
            setup: [("/a", #"{"b":{"c":true}}"#)],
            "GET",
            "/a/b.json",
            status: 200,
            expected: #"{"c":true}"#
        ),
        .init(
            "get root with trailing slash",
            setup: [("/a", "1")],
            "GET",
            "/a/.json",
            status: 200,
            expected: "1"
        ),
        .init(
            "get percent-decoded path",
            setup: [("/a b", "1")],
            "GET",
            "/a%20b.json",
            status: 200,
            expected: "1"
        ),
        .init(
            "patch merges",
            setup: [("/a", #"{"b":1,"c":2}"#)],
            "PATCH",
            "/a.json",
            body: #"{"c":3,"d":4}"#,
            status: 200,
            expected: #"{"c":3,"d":4}"#,
            after: [("/a", #"{"b":1,"c":3,"d":4}"#)]
        ),
        .init(
            "patch deep paths",
            setup: [("/a", #"{"x":{"y":1,"z":2}}"#)],
            "PATCH",
            "/a.json",
            body: #"{"x/y":10,"w/v":"s"}"#,
            status: 200,
            expected: #"{"x/y":10,"w/v":"s"}"#,
            after: [("/a", #"{"x":{"y":10,"z":2},"w":{"v":"s"}}"#)]
        ),
        .init(
            "patch null deletes child",
            setup: [("/a", #"{"b":1,"c":2}"#)],
            "PATCH",
            "/a.json",
            body: #"{"b":null}"#,
            status: 200,
            after: [("/a", #"{"c":2}"#)]
        ),
        .init(
            "delete",
            setup: [("/a", #"{"b":1,"c":2}"#)],
            "DELETE",
            "/a/b.json",
            status: 200,
            expected: "null",
            after: [("/a", #"{"c":2}"#)]
        ),
        .init(
            "print pretty",
            setup: [("/a", #"{"b":1}"#)],
            "GET",
            "/a.json?print=pretty",
            status: 200,
            expected: #"{"b":1}"#,
            contains: "\n"
        ),
        .init(
            "print silent get",
            setup: [("/a", "1")],
            "GET",
            "/a.json?print=silent",
            status: 204,
            expected: nil
        ),
        .init(
            "print silent put",
            "PUT",
            "/a.json?print=silent",
            body: "1",
            status: 204,
            after: [("/a", "1")]
        ),
        .init(
            "format export shows priority",
            "PUT",
            "/p.json",
            body: #"{"x":{".value":1,".priority":5}}"#,
            status: 200
        ),
        .init(
            "format export",
            setup: [("/p", #"{"x":{".value":1,".priority":5}}"#)],
            "GET",
            "/p.json?format=export",
            status: 200,
            expected: #"{"x":{".value":1,".priority":5}}"#
        ),
        .init(
            "plain hides priority",
            setup: [("/p", #"{"x":{".value":1,".priority":5}}"#)],
            "GET",
            "/p.json",
            status: 200,
            expected: #"{"x":1}"#
        ),
        .init(
            "array-like object is an array",
            setup: [("/l", #"{"0":"a","1":"b","2":"c"}"#)],
            "GET",
            "/l.json",
            status: 200,
            expected: #"["a","b","c"]"#
        ),
        .init(
            "shallow",
            setup: [("/s", #"{"a":{"deep":1},"b":2,"c":"x"}"#)],
            "GET",
            "/s.json?shallow=true",
            status: 200,
            expected: #"{"a":true,"b":2,"c":"x"}"#
        ),
        .init(
            "shallow leaf",
            setup: [("/s", "7")],
            "GET",
            "/s.json?shallow=true",
            status: 200,
            expected: "7"
        ),
        .init(
            "shallow paged",
            setup: [("/s", #"{"a":1,"b":2,"c":3,"d":4}"#)],
            "GET",
            "/s.json?shallow=true&startAfter=%22a%22&limitToFirst=2",
            status: 200,
            expected: #"{"b":2,"c":3}"#
        ),
        .init(
            "server timestamp resolved",
            "PUT",
            "/t.json",
            body: #"{".sv":"timestamp"}"#,
            status: 200,
            contains: "1"
        ),
        .init(
            "server increment",
            setup: [("/n", "5")],
            "PUT",
            "/n.json",
            body: #"{".sv":{"increment":2}}"#,
            status: 200,
            expected: "7",
            after: [("/n", "7")]
        ),
        .init(
            "priority write",
            setup: [("/p", #"{"a":1}"#)],
            "PUT",
            "/p/.priority.json",
            body: "3",
            status: 200,
            expected: "3"
        ),
        .init(
            "priority read",
            setup: [("/p", #"{".value":1,".priority":"hi"}"#)],
            "GET",
            "/p/.priority.json",
            status: 200,
            expected: #""hi""#
        ),
        .init(
            "method override header",
            setup: [("/a", "1")],
            "POST",
            "/a.json",
            headers: [("X-HTTP-Method-Override", "DELETE")],
            status: 200,
            expected: "null",
            after: [("/a", "null")]
        ),
        .init(
            "method override query",
            setup: [("/a", "1")],
            "POST",
            "/a.json?x-http-method-override=PUT",
            body: "2",
            status: 200,
            expected: "2",
            after: [("/a", "2")]
        ),
        .init(
            "timeout accepted",
            setup: [("/a", "1")],
            "GET",
            "/a.json?timeout=3s",
            status: 200,
            expected: "1"
        ),
        .init(
            "writeSizeLimit within",
            "PUT",
            "/a.json?writeSizeLimit=tiny",
            body: "1",
            status: 200,
            expected: "1"
        ),
        .init(
            "health",
            "GET",
            "/.well-known/hearth/health",
            auth: .none,
            status: 200
        ),
    ]

    @Test(arguments: scenarios)
    func scenario(_ scenario: RESTScenario) async throws {
        try await TestServer.with { server in
            let problems = try await scenario.run(on: server)
            #expect(problems.isEmpty, "\(scenario.id): \(problems.joined(separator: "; "))")
        }
    }

    @Test func postAnswersPushIDAndStoresUnderIt() async throws {
        try await TestServer.with { server in
            let reply = try await server.send(
                "POST",
                "/messages.json?auth=\(TestServer.adminSecret)",
                text: #"{"text":"hi"}"#
            )
            #expect(reply.status == 200)
            let name = try #require(
                JSONCompare.canonical(reply.body).flatMap { text -> String? in
                    guard text.hasPrefix("{\"name\":\"") else { return nil }
                    return String(text.dropFirst(9).dropLast(2))
                }
            )
            #expect(name.count == 20)
            let stored = try await server.get("/messages/\(name)")
            #expect(JSONCompare.equal(stored, #"{"text":"hi"}"#))
            let second = try await server.send(
                "POST",
                "/messages.json?auth=\(TestServer.adminSecret)",
                text: #""b""#
            )
            #expect(second.body > reply.body, "push ids are chronological")
        }
    }

    @Test func corsPreflightAndHeader() async throws {
        try await TestServer.with { server in
            let preflight = try await server.send(
                "OPTIONS",
                "/a.json",
                headers: [
                    ("Origin", "http://example.com"), ("Access-Control-Request-Method", "PUT"),
                    ("Access-Control-Request-Headers", "content-type"),
                ]
            )
            #expect(preflight.status == 200)
            #expect(preflight.headers.first(name: "Access-Control-Allow-Origin") == "*")
            #expect(preflight.headers.first(name: "Access-Control-Allow-Methods")?.contains("PATCH") == true)
            let get = try await server.send("GET", "/a.json?auth=\(TestServer.adminSecret)")
            #expect(get.headers.first(name: "Access-Control-Allow-Origin") == "*")
            let refused = try await server.send("GET", "/a.json")
            #expect(refused.status == 401)
            #expect(refused.headers.first(name: "Access-Control-Allow-Origin") == "*")
        }
    }

    @Test func corsNarrowedOrigin() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in configuration.corsAllowedOrigin = "https://app.example" },
            run: { server in
                let get = try await server.send("GET", "/.well-known/hearth/health")
                #expect(get.headers.first(name: "Access-Control-Allow-Origin") == "https://app.example")
            }
        )
    }
}
