import Foundation
import Testing

/// `shallow=true&limitToFirst=N&startAfter=KEY` pages through a node's keys as firebase-tools'
/// `database:remove` and `database:export` list them (the key bare, form-encoded by
/// `URLSearchParams`); `shallow` with `orderBy` or any other querying parameter is refused.
struct ShallowPagingTests {
    static let mixing = "Mixing 'shallow' and querying parameters is not supported"

    /// Keys in Firebase key order: integer keys numerically, then strings.
    static let keys = ["1", "2", "9", "10", "100", "-Nz0aB_c", "a b", "a+b", "b", "zz"]

    static var document: String {
        "{" + keys.enumerated().map { "\"\($1)\":{\"n\":\($0)}" }.joined(separator: ",") + "}"
    }

    /// `URLSearchParams` encoding: `+` for a space, `%2B` for a plus.
    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.*")
        return text.addingPercentEncoding(withAllowedCharacters: allowed.union(.init(charactersIn: " ")))!
            .replacingOccurrences(of: " ", with: "+")
    }

    /// The keys of one page, in the order the server sent them.
    static func page(_ server: TestServer, limit: Int, after key: String?) async throws -> [String] {
        var query = "&shallow=true&limitToFirst=\(limit)"
        if let key { query += "&startAfter=\(formEncoded(key))" }
        let body = try await server.get("/list", query: query)
        if body == "null" { return [] }
        // Keys in document order: JSONSerialization loses it.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(object.values.allSatisfy { ($0 as? Bool) == true }, "\(body)")
        return object.keys.sorted { a, b in Self.keys.firstIndex(of: a)! < Self.keys.firstIndex(of: b)! }
    }

    @Test(arguments: [1, 3, 4, 10, 11])
    func pagesVisitEveryKeyOnceInKeyOrder(limit: Int) async throws {
        try await TestServer.with { server in
            try await server.put("/list", Self.document)
            var seen: [String] = []
            var last: String?
            for _ in 0...Self.keys.count {
                let keys = try await Self.page(server, limit: limit, after: last)
                #expect(keys.count <= limit)
                seen += keys
                guard keys.count == limit, let next = keys.last else { break }
                last = next
            }
            #expect(seen == Self.keys)
        }
    }

    @Test func theFirstPageAfterABareKeyIsThatPage() async throws {
        try await TestServer.with { server in
            try await server.put("/list", Self.document)
            #expect(try await Self.page(server, limit: 2, after: "9") == ["10", "100"])
            #expect(try await Self.page(server, limit: 2, after: "a b") == ["a+b", "b"])
            #expect(try await Self.page(server, limit: 5, after: "b") == ["zz"])
            #expect(try await Self.page(server, limit: 5, after: "zz") == [])
            // A key that is not there: the keys after where it would be.
            #expect(try await Self.page(server, limit: 1, after: "c") == ["zz"])
            // JSON-quoted, as before.
            let quoted = try await server.get("/list", query: "&shallow=true&limitToFirst=1&startAfter=%22b%22")
            #expect(JSONCompare.equal(quoted, #"{"zz":true}"#))
        }
    }

    static let refused: [RESTScenario] = [
        .init("orderBy $key", "GET", "/list.json?shallow=true&orderBy=%22$key%22", status: 400, error: mixing),
        .init(
            "orderBy $key with paging",
            "GET",
            "/list.json?shallow=true&orderBy=%22$key%22&limitToFirst=2&startAfter=a",
            status: 400,
            error: mixing
        ),
        .init("orderBy $value", "GET", "/list.json?shallow=true&orderBy=%22$value%22", status: 400, error: mixing),
        .init("orderBy child", "GET", "/list.json?shallow=true&orderBy=%22n%22", status: 400, error: mixing),
        .init("orderBy unparsable", "GET", "/list.json?shallow=true&orderBy=n", status: 400, error: mixing),
        .init("startAt", "GET", "/list.json?shallow=true&startAt=%22a%22", status: 400, error: mixing),
        .init("endAt", "GET", "/list.json?shallow=true&endAt=%22a%22", status: 400, error: mixing),
        .init("endBefore", "GET", "/list.json?shallow=true&endBefore=%22a%22", status: 400, error: mixing),
        .init("equalTo", "GET", "/list.json?shallow=true&equalTo=%22a%22", status: 400, error: mixing),
        .init("limitToLast", "GET", "/list.json?shallow=true&limitToLast=2", status: 400, error: mixing),
        .init(
            "empty startAfter",
            "GET",
            "/list.json?shallow=true&startAfter=",
            status: 400,
            error: "Invalid startAfter '': with shallow=true, use the key to page after."
        ),
        .init(
            "negative limit",
            "GET",
            "/list.json?shallow=true&limitToFirst=-1",
            status: 400,
            error: "Invalid limitToFirst '-1': use a non-negative integer."
        ),
    ]

    @Test(arguments: refused)
    func shallowMixedWithQueryingIsRefused(_ scenario: RESTScenario) async throws {
        try await TestServer.with { server in
            try await server.put("/list", Self.document)
            let problems = try await scenario.run(on: server)
            #expect(problems.isEmpty, "\(scenario.id): \(problems.joined(separator: "; "))")
        }
    }
}
