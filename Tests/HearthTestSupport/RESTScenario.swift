/// One REST exchange to check: a request and what must come back, plus, for refused writes,
/// what the data must still be afterwards.
public struct RESTScenario: Sendable, CustomStringConvertible {
    public enum Auth: Sendable {
        case admin
        case none
        case query(String)
        case bearer(String)
    }

    public var id: String
    /// Admin PUTs applied before the request: (data path, JSON).
    public var setup: [(String, String)] = []
    public var method: String
    /// Path with `.json` and any query, without `auth`.
    public var path: String
    public var auth: Auth = .admin
    public var headers: [(String, String)] = []
    public var body: [UInt8]? = nil
    public var status: Int
    /// The whole body, compared as JSON.
    public var expected: String? = nil
    /// Firebase's error message, compared exactly.
    public var error: String? = nil
    /// A fragment the body must contain.
    public var contains: String? = nil
    /// After the request: (data path, expected JSON via an admin GET).
    public var after: [(String, String)] = []

    public var description: String { id }

    public init(
        _ id: String,
        setup: [(String, String)] = [],
        _ method: String,
        _ path: String,
        auth: Auth = .admin,
        headers: [(String, String)] = [],
        body: String? = nil,
        rawBody: [UInt8]? = nil,
        status: Int,
        expected: String? = nil,
        error: String? = nil,
        contains: String? = nil,
        after: [(String, String)] = []
    ) {
        self.id = id
        self.setup = setup
        self.method = method
        self.path = path
        self.auth = auth
        self.headers = headers
        self.body = rawBody ?? body.map { Array($0.utf8) }
        self.status = status
        self.expected = expected
        self.error = error
        self.contains = contains
        self.after = after
    }

    /// Sends the scenario's request to `server` and checks the reply.
    public func run(on server: TestServer) async throws -> [String] {
        for (path, json) in setup { try await server.put(path, json) }
        var url = path
        var headers = self.headers
        switch auth {
        case .admin: url += (url.contains("?") ? "&" : "?") + "auth=\(TestServer.adminSecret)"
        case .none: break
        case .query(let token): url += (url.contains("?") ? "&" : "?") + "auth=\(token)"
        case .bearer(let token): headers.append(("Authorization", "Bearer \(token)"))
        }
        let reply = try await server.send(method, url, headers: headers, body: body)
        var problems: [String] = []
        if reply.status != status { problems.append("status \(reply.status), expected \(status); body \(reply.body)") }
        if let expected, !JSONCompare.equal(reply.body, expected) {
            problems.append("body \(reply.body), expected \(expected)")
        }
        if let error {
            let actual = JSONCompare.canonical(reply.body)
            let wanted = JSONCompare.canonical("{\"error\": \(jsonQuoted(error))}")
            if actual != wanted { problems.append("body \(reply.body), expected error '\(error)'") }
        }
        if let contains, !reply.body.contains(contains) {
            problems.append("body \(reply.body) lacks '\(contains)'")
        }
        for (path, json) in after {
            let now = try await server.get(path)
            if !JSONCompare.equal(now, json) { problems.append("afterwards \(path) = \(now), expected \(json)") }
        }
        return problems
    }
}

public func jsonQuoted(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
        switch c {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        default: out.unicodeScalars.append(c)
        }
    }
    return out + "\""
}
