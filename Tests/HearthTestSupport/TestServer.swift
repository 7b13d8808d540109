import AsyncHTTPClient
import Foundation
import HearthServer
import NIOCore
import NIOHTTP1

/// A real Hearth server, in this process, on a free port of 127.0.0.1 over a temporary data
/// directory, removed afterwards. The name most tests use; the CLI tests' `hearth serve`
/// child process is `ProcessTestServer`.
public struct TestServer: Sendable {
    public static let adminSecret = "test-admin-secret"
    public static let jwtSecret = "test-jwt-secret"

    public let port: Int
    public let directory: URL

    /// A server already running on `port` over `directory` (a test that starts and stops
    /// `HearthServer` itself, to restart it on the same data).
    public init(port: Int, directory: URL) {
        self.port = port
        self.directory = directory
    }

    /// Runs `body` against a fresh server whose default namespace has `rules`.
    public static func with(rules: String, run body: (TestServer) async throws -> Void) async throws {
        try await with(
            prepare: { configuration, _ in
                try rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
            },
            run: body
        )
    }

    /// Runs `body` against a fresh server. `prepare` may edit the configuration and write
    /// files (rules, seed) in the temporary directory first. Inside
    /// `TestServer.$throughCluster.withValue(true)`, the server is a node of a fresh two-node
    /// cluster that does not own `default` (`withCluster`).
    public static func with(
        prepare: (inout HearthServerConfiguration, URL) throws -> Void = { _, _ in },
        run body: (TestServer) async throws -> Void
    ) async throws {
        if throughCluster { return try await withCluster(prepare: prepare, run: body) }
        let temporary = try TemporaryDirectory(prefix: "hearth-server-tests")
        defer { temporary.remove() }
        let directory = temporary.url
        let configuration = try configuration(in: directory, prepare: prepare)
        let (running, server) = try await start(configuration, in: directory)
        do {
            try await body(server)
        } catch {
            await running.shutdown()
            throw error
        }
        await running.shutdown()
    }

    /// The testing configuration over `directory` (with an empty `rules/`), after `prepare`.
    static func configuration(
        in directory: URL,
        prepare: (inout HearthServerConfiguration, URL) throws -> Void
    ) throws -> HearthServerConfiguration {
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("rules"),
            withIntermediateDirectories: true
        )
        var configuration = HearthServerConfiguration.testing(in: directory)
        try prepare(&configuration, directory)
        return configuration
    }

    public struct Reply: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: String
    }

    /// Sends one request; `path` includes any query string. `timeout` bounds the whole
    /// exchange (a test moving many megabytes through a debug build on a loaded box needs more).
    public func send(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> Reply {
        let timeout = TimeAmount.seconds(timeout.components.seconds)
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: timeout)
        } catch  where Self.isStaleConnection(error) && ["GET", "PUT", "DELETE", "HEAD"].contains(method) {
            // The shared client reused a keep-alive connection the server had just closed for
            // idleness (tests with short idle timeouts): an idempotent request is sent again, as
            // HTTP lets a client do (RFC 9112 §9.3.1).
            response = try await HTTPClient.shared.execute(request, timeout: timeout)
        }
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }

    /// The request met a pooled connection that was closed before it was answered.
    public static func isStaleConnection(_ error: any Error) -> Bool {
        if let error = error as? ChannelError, error == .ioOnClosedChannel { return true }
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return true }
        // The server's close for idleness crossed the request on the wire: it answered with a reset.
        if let error = error as? IOError, error.errnoCode == ECONNRESET { return true }
        return false
    }

    public func send(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        text: String
    ) async throws
        -> Reply
    {
        try await send(method, path, headers: headers, body: Array(text.utf8))
    }

    /// Admin `PUT` of JSON text at `path` (a data path without `.json`), expecting 200.
    public func put(_ path: String, _ json: String, ns: String? = nil) async throws {
        let reply = try await send("PUT", Self.url(path, ns: ns, admin: true), text: json)
        guard reply.status == 200 else {
            throw TestFailure("setup PUT \(path) answered \(reply.status): \(reply.body)")
        }
    }

    /// Admin `GET` of `path`, returning the body.
    public func get(_ path: String, ns: String? = nil, query: String = "") async throws -> String {
        let reply = try await send("GET", Self.url(path, ns: ns, admin: true) + query)
        guard reply.status == 200 else {
            throw TestFailure("GET \(path) answered \(reply.status): \(reply.body)")
        }
        return reply.body
    }

    public static func url(_ path: String, ns: String? = nil, admin: Bool) -> String {
        var url = (path == "/" ? "/" : path) + ".json"
        var query: [String] = []
        if let ns { query.append("ns=\(ns)") }
        if admin { query.append("auth=\(adminSecret)") }
        if !query.isEmpty { url += "?" + query.joined(separator: "&") }
        return url
    }
}
