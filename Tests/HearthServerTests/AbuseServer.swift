import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// The abuse suite's server: a real server with small limits, the per-address limits applied
/// to loopback, and a `ControlClient` that must keep working while an attack runs. Attackers
/// connect from `attacker` (another loopback address), so the per-address limits they meet
/// are not the control client's; the control client is checked before, during (where the
/// attack holds something open) and after each attack, and the server must still answer its
/// health check at the end.
enum AbuseServer {
    /// The address attacks come from; the control client uses 127.0.0.1.
    static let attacker = "127.0.0.2"
    static let health = "GET /.well-known/hearth/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    /// What the secret paths hold; no answer to an attacker may contain it.
    static let secretValue = "s3cret-value"

    static let rules = """
        {"rules": {
          "control": {".read": "auth != null && auth.uid == 'control'", ".write": "auth != null && auth.uid == 'control'"},
          "open": {".read": true, ".write": true},
          "secret": {".read": false, ".write": false},
          "public": {".read": true, ".write": false},
          "users": {"$uid": {".read": "auth != null && auth.uid == $uid", ".write": "auth != null && auth.uid == $uid"}},
          "regex": {"$id": {".write": true, ".validate": "newData.isString() && newData.val().matches(/(a+)+$/)"}}
        }}
        """

    /// Runs `body` against a fresh server (`configure` may change its configuration and write
    /// more rules files) and its control client.
    static func with(
        configure: (inout HearthServerConfiguration, URL) throws -> Void = { _, _ in },
        run body: (TestServer, ControlClient) async throws -> Void
    ) async throws {
        try await TestServer.with(
            prepare: { configuration, directory in
                try rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
                configuration.connections.limitsLoopback = true
                configuration.connections.headerTimeout = .seconds(2)
                try configure(&configuration, directory)
            },
            run: { server in
                try await server.put("/secret", "\"\(secretValue)\"")
                try await server.put("/users/ada/secret", "\"\(secretValue)\"")
                try await server.put("/public/note", "\"hello\"")
                let control = try await ControlClient.start(server)
                try await control.check()
                try await body(server, control)
                try await control.check()
                let health = try await server.send("GET", "/.well-known/hearth/health")
                #expect(health.status == 200, "the server is still up")
                await control.close()
            }
        )
    }
}

/// An ordinary client that must not notice an attack: a WebSocket authenticated as `control`
/// listening on `/control`, and REST writes there with the same token. `check()` writes the
/// next number and waits for the listener to see it.
final class ControlClient: Sendable {
    /// How long a write may take to reach the listener while the server is under attack (the
    /// tests' usual wait: the whole suite may load a 2-core machine).
    static let bound: Duration = .seconds(10)

    let server: TestServer
    let listener: RealtimeTestClient
    let token: String
    private let written = Locked(0)

    private init(server: TestServer, listener: RealtimeTestClient, token: String) {
        self.server = server
        self.listener = listener
        self.token = token
    }

    static func start(_ server: TestServer) async throws -> ControlClient {
        let token = TokenMinter.token(uid: "control")
        let listener = try await RealtimeTestClient.connect(port: server.port)
        let auth = try await listener.response(to: listener.request("auth", #"{"cred":"\#(token)"}"#))
        guard auth.body["s"] as? String == "ok" else { throw TestFailure("control auth failed: \(auth.body)") }
        let listen = try await listener.response(to: listener.request("q", #"{"p":"/control","h":""}"#))
        guard listen.body["s"] as? String == "ok" else { throw TestFailure("control listen failed: \(listen.body)") }
        return ControlClient(server: server, listener: listener, token: token)
    }

    /// Writes the next number to `/control/n` over REST and waits until the listener sees it;
    /// throws when the write is refused or the event takes longer than `bound`.
    func check() async throws {
        let n = written.withLock { count -> Int in
            count += 1
            return count
        }
        let started = ContinuousClock.now
        let reply = try await server.send("PUT", "/control/n.json?auth=\(token)", text: "\(n)")
        guard reply.status == 200 else {
            throw TestFailure("control write \(n) answered \(reply.status): \(reply.body)")
        }
        while true {
            let remaining = Self.bound - (ContinuousClock.now - started)
            guard remaining > .zero else { throw TestFailure("control event \(n) took longer than \(Self.bound)") }
            let push = try await listener.nextPush(timeout: remaining)
            guard let body = push["b"] as? [String: Any] else { continue }
            if body["p"] as? String == "control/n", body["d"] as? Int == n { return }
            if body["p"] as? String == "control", (body["d"] as? [String: Any])?["n"] as? Int == n { return }
        }
    }

    func close() async { await listener.close() }
}
