import AsyncHTTPClient
import Crypto
import Foundation
import HearthServer
import Logging
import NIOCore
import NIOHTTP1

/// A real Hearth server on a free port over a temporary data directory, removed afterwards.
struct TestServer: Sendable {
    static let adminSecret = "test-admin-secret"
    static let jwtSecret = "test-jwt-secret"

    let port: Int
    let directory: URL

    /// Runs `body` against a fresh server whose default namespace has `rules`.
    static func with(rules: String, run body: (TestServer) async throws -> Void) async throws {
        try await with(
            prepare: { configuration, _ in
                try rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
            },
            run: body
        )
    }

    /// Runs `body` against a fresh server. `prepare` may edit the configuration and write
    /// files (rules, seed) in the temporary directory first.
    static func with(
        prepare: (inout HearthServerConfiguration, URL) throws -> Void = { _, _ in },
        run body: (TestServer) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("hearth-server-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("rules"),
            withIntermediateDirectories: true
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = HearthServerConfiguration(
            host: "127.0.0.1",
            port: 0,
            dataDirectory: directory.appendingPathComponent("data").path,
            rulesFile: directory.appendingPathComponent("rules/database.rules.json").path,
            seedFile: nil,
            adminSecret: adminSecret,
            jwtSecret: jwtSecret
        )
        try prepare(&configuration, directory)
        var logger = Logger(label: "hearth.test")
        logger.logLevel = ProcessInfo.processInfo.environment["HEARTH_TEST_LOG"] == nil ? .critical : .debug
        let running = try await HearthServer.start(configuration: configuration, logger: logger)
        let server = TestServer(port: running.port, directory: directory)
        do {
            try await body(server)
        } catch {
            await running.shutdown()
            throw error
        }
        await running.shutdown()
    }

    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: String
    }

    /// Sends one request; `path` includes any query string.
    func send(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        } catch  where Self.isStaleConnection(error) && ["GET", "PUT", "DELETE", "HEAD"].contains(method) {
            // The shared client reused a keep-alive connection the server had just closed for
            // idleness (tests with short idle timeouts): an idempotent request is sent again, as
            // HTTP lets a client do (RFC 9112 §9.3.1).
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        }
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }

    /// The request met a pooled connection that was closed before it was answered.
    static func isStaleConnection(_ error: any Error) -> Bool {
        if let error = error as? ChannelError, error == .ioOnClosedChannel { return true }
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return true }
        return false
    }

    func send(
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
    func put(_ path: String, _ json: String, ns: String? = nil) async throws {
        let reply = try await send("PUT", Self.url(path, ns: ns, admin: true), text: json)
        guard reply.status == 200 else {
            throw TestFailure("setup PUT \(path) answered \(reply.status): \(reply.body)")
        }
    }

    /// Admin `GET` of `path`, returning the body.
    func get(_ path: String, ns: String? = nil, query: String = "") async throws -> String {
        let reply = try await send("GET", Self.url(path, ns: ns, admin: true) + query)
        guard reply.status == 200 else {
            throw TestFailure("GET \(path) answered \(reply.status): \(reply.body)")
        }
        return reply.body
    }

    static func url(_ path: String, ns: String? = nil, admin: Bool) -> String {
        var url = (path == "/" ? "/" : path) + ".json"
        var query: [String] = []
        if let ns { query.append("ns=\(ns)") }
        if admin { query.append("auth=\(adminSecret)") }
        if !query.isEmpty { url += "?" + query.joined(separator: "&") }
        return url
    }
}

struct TestFailure: Error, CustomStringConvertible, Equatable {
    let description: String
    init(_ description: String) { self.description = description }
}

/// JSON equality regardless of member order and whitespace.
enum JSONCompare {
    static func canonical(_ text: String) -> String? {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let again = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        else { return nil }
        return String(decoding: again, as: UTF8.self)
    }

    static func equal(_ a: String, _ b: String) -> Bool {
        guard let x = canonical(a), let y = canonical(b) else { return false }
        return x == y
    }
}

/// HS256 ID tokens as the auth service mints them.
enum TokenMinter {
    static func token(
        uid: String = "alice",
        secret: String = TestServer.jwtSecret,
        expiresIn: Double = 3600,
        issuedAgo: Double = 10,
        algorithm: String = "HS256"
    ) -> String {
        let now = Date().timeIntervalSince1970
        let header = "{\"alg\":\"\(algorithm)\",\"typ\":\"JWT\"}"
        let payload =
            "{\"user_id\":\"\(uid)\",\"sub\":\"\(uid)\",\"iat\":\(Int(now - issuedAgo)),\"exp\":\(Int(now + expiresIn)),"
            + "\"firebase\":{\"sign_in_provider\":\"password\"}}"
        let signingInput = base64URL(Array(header.utf8)) + "." + base64URL(Array(payload.utf8))
        guard algorithm == "HS256" else { return signingInput + "." }
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array(signingInput.utf8),
            using: SymmetricKey(data: Array(secret.utf8))
        )
        return signingInput + "." + base64URL(Array(mac))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
