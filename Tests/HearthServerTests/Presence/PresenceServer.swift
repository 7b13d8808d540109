import Foundation
import HearthServer
import HearthTestSupport

/// A real server keeping presence in `default` (and `chat2`), with signed-up users: what the
/// presence tests connect to and read.
struct PresenceServer: Sendable {
    let accounts: AccountsClient
    /// uid and ID token by name.
    let users: [String: (uid: String, token: String)]
    /// The clock presence waits out its windows on, when the test steps it (`with(clock:)`).
    let clock: SteppedClock?

    var server: TestServer { accounts.server }

    /// Rules that let signed-in users read `presence/$uid` (and nothing else).
    static let rules = #"{"rules": {"presence": {"$uid": {".read": "auth != null"}}}}"#

    /// Starts a server with presence in `default` and `chat2` (`flushDelay` 100 ms unless
    /// `prepare` changes it), signs up `names` and runs `body`. With a `clock`, each presence
    /// window closes only when the test closes it (`closeWindow()`); the clock runs free
    /// before the server stops.
    static func with(
        users names: [String] = ["ada", "bob"],
        clock: SteppedClock? = nil,
        prepare: @escaping (inout HearthServerConfiguration) -> Void = { _ in },
        run body: (PresenceServer) async throws -> Void
    ) async throws {
        try await AccountsClient.withServer(prepare: { configuration in
            try? rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
            configuration.presence = PresenceConfiguration(namespaces: ["default", "chat2"])
            if let clock { configuration.presence.clock = clock }
            prepare(&configuration)
        }) { accounts in
            defer { clock?.runFree() }
            var users: [String: (uid: String, token: String)] = [:]
            for name in names {
                let answer = try await accounts.signUp("\(name)@example.com")
                users[name] = (answer.string("localId"), answer.string("idToken"))
            }
            try await body(PresenceServer(accounts: accounts, users: users, clock: clock))
        }
    }

    /// Waits until the presence writer has opened a window (a change it counts woke it: the
    /// server has registered the change), then closes it: what is pending is written next.
    /// Only with a stepped `clock`.
    func closeWindow() async throws {
        guard let clock else { throw TestFailure("closeWindow() needs PresenceServer.with(clock:)") }
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(1))  // the longest window `flushDelay` allows
    }

    func uid(_ name: String) -> String { users[name]!.uid }
    func token(_ name: String) -> String { users[name]!.token }

    /// `presence/$uid` of `name` as the admin reads it (nil: no entry).
    func entry(_ name: String, ns: String? = nil) async throws -> [String: Any]? {
        let text = try await server.get("/presence/\(uid(name))", ns: ns)
        return try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) as? [String: Any]
    }

    /// The entry's `state` (nil: no entry).
    func state(_ name: String, ns: String? = nil) async throws -> String? {
        try await entry(name, ns: ns)?["state"] as? String
    }

    /// Waits until `name`'s state is `wanted`; returns how long that took. Fails after `timeout`.
    @discardableResult
    func waitFor(
        _ name: String,
        _ wanted: String?,
        ns: String? = nil,
        timeout: Duration = .seconds(5)
    ) async throws
        -> Duration
    {
        let started = ContinuousClock.now
        let seen = try await eventually(timeout: timeout, interval: .milliseconds(10)) {
            try await state(name, ns: ns)
        } until: {
            $0 == wanted
        }
        guard seen == wanted else {
            throw TestFailure("\(name)'s presence is \(seen ?? "absent"), not \(wanted ?? "absent"), after \(timeout)")
        }
        return .now - started
    }

    /// Waits until `name` is `offline`, then returns how long after `since` the server wrote it:
    /// its `lastChanged` (the commit's time) minus `since`, so the wait's own polling and a busy
    /// test machine's scheduling of this client do not count.
    func offlineDelay(_ name: String, since: Date, ns: String? = nil) async throws -> Duration {
        try await waitFor(name, "offline", ns: ns, timeout: .seconds(10))
        guard let lastChanged = try await entry(name, ns: ns)?["lastChanged"] as? Double else {
            throw TestFailure("\(name)'s offline entry has no lastChanged")
        }
        return .milliseconds(Int64(lastChanged - (since.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// The fence of a test that expects nothing written: connects `name` (not connected yet)
    /// and waits until the server has written them online. A change the server counted before
    /// is written by then (each flush writes every pending user, one commit per namespace, in
    /// order), so the test can check that nothing else was. Returns the connection.
    func fence(_ name: String, ns: String? = nil) async throws -> RealtimeTestClient {
        let client = try await connect(name, ns: ns)
        if clock != nil { try await closeWindow() }
        try await waitFor(name, "online", ns: ns)
        return client
    }

    /// A WebSocket of `name` to `ns`, authenticated with their ID token.
    func connect(_ name: String, ns: String? = nil) async throws -> RealtimeTestClient {
        let client = try await RealtimeTestClient.connect(port: server.port, ns: ns)
        let reply = try await client.response(to: client.request("auth", #"{"cred":"\#(token(name))"}"#))
        guard reply.body["s"] as? String == "ok" else { throw TestFailure("auth of \(name) failed: \(reply.body)") }
        return client
    }

    /// A raw WebSocket of `name` (to end it without a close frame), authenticated.
    func connectRaw(_ name: String) async throws -> RawWebSocket {
        let port = server.port
        let token = token(name)
        return try await onThread {
            let socket = try RawWebSocket(port: port)
            _ = try socket.readText()  // hello
            try socket.sendText(#"{"t":"d","d":{"r":1,"a":"auth","b":{"cred":"\#(token)"}}}"#)
            let answer = try socket.awaitResponse(to: 1)
            guard answer.contains(#""s":"ok""#) else { throw TestFailure("raw auth failed: \(answer)") }
            return socket
        }
    }
}
