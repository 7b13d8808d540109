import AsyncHTTPClient
import Foundation
import HearthAccounts
import HearthServer
import NIOCore
import NIOHTTP1

/// Calls the Firebase Auth REST endpoints of a `TestServer` as the JS SDK does
/// (`/identitytoolkit.googleapis.com/v1/accounts:<op>?key=...`, JSON bodies).
public struct AccountsClient: Sendable {
    public let server: TestServer

    public init(server: TestServer) {
        self.server = server
    }

    public struct Answer: @unchecked Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var json: [String: Any]
        public var body: String

        /// `error.message` of a Firebase error body.
        public var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
        public subscript(key: String) -> Any? { json[key] }
        public func string(_ key: String) -> String { json[key] as? String ?? "" }
    }

    /// Starts a server whose accounts hash with cheap scrypt parameters.
    public static func withServer(
        prepare: @escaping (inout HearthServerConfiguration) -> Void = { _ in },
        _ body: (AccountsClient) async throws -> Void
    ) async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.accounts = AccountsConfiguration(scrypt: .testing, hashingThreads: 2)
            prepare(&configuration)
        }) { server in
            try await body(AccountsClient(server: server))
        }
    }

    public func call(
        _ operation: String,
        _ body: [String: Any],
        headers: [(String, String)] = []
    ) async throws -> Answer {
        let data = try JSONSerialization.data(withJSONObject: body)
        return try await send(
            "/identitytoolkit.googleapis.com/v1/accounts:\(operation)?key=fake-api-key",
            headers: [("Content-Type", "application/json")] + headers,
            body: Array(data)
        )
    }

    public func send(
        _ path: String,
        method: String = "POST",
        headers: [(String, String)],
        body: [UInt8]
    ) async throws -> Answer {
        let reply = try await server.send(method, path, headers: headers, body: body)
        let json = (try? JSONSerialization.jsonObject(with: Data(reply.body.utf8))) as? [String: Any] ?? [:]
        return Answer(status: reply.status, headers: reply.headers, json: json, body: reply.body)
    }

    /// `securetoken.googleapis.com/v1/token`, form-encoded as the SDK sends it.
    public func refresh(_ token: String, grantType: String = "refresh_token") async throws -> Answer {
        let form = "grant_type=\(grantType)&refresh_token=\(token)"
        return try await send(
            "/securetoken.googleapis.com/v1/token?key=fake-api-key",
            headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(form.utf8)
        )
    }

    /// Signs up and returns the answer, failing on anything but 200.
    public func signUp(_ email: String, _ password: String = "secret1") async throws -> Answer {
        let answer = try await call("signUp", ["email": email, "password": password, "returnSecureToken": true])
        guard answer.status == 200 else { throw TestFailure("signUp answered \(answer.status): \(answer.body)") }
        return answer
    }

    /// A realtime-database REST read with `token` as `?auth=`.
    public func readWith(_ token: String) async throws -> TestServer.Reply {
        try await server.send("GET", "/anything.json?auth=\(token)")
    }
}
