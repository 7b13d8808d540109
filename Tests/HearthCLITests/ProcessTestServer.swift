import AsyncHTTPClient
import Foundation
import HearthTestSupport
import NIOCore
import Testing

/// A `hearth serve` child process on a free port of 127.0.0.1 (or another host), with an HTTP client for it: for
/// what needs a real process (signals, `kill -9`, the command line). Tests of the server itself
/// use the in-process `TestServer` (HearthTestSupport).
final class ProcessTestServer: @unchecked Sendable {
    let child: Child
    let host: String
    let port: Int
    let dataDirectory: URL
    let adminSecret: String?
    let client: HTTPClient

    private init(child: Child, host: String, port: Int, dataDirectory: URL, adminSecret: String?) {
        self.child = child
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.adminSecret = adminSecret
        self.client = HTTPClient(eventLoopGroupProvider: .singleton)
    }

    /// A test that failed before `terminate()` or `kill()` still shuts its client down
    /// (AsyncHTTPClient stops the whole test process when a client is dropped running) and ends
    /// its child, which would otherwise serve on after the test run.
    deinit {
        try? client.syncShutdown()
        if child.isRunning { child.send(SIGKILL) }
    }

    /// Starts `hearth serve` on `dataDirectory` (run from `workingDirectory`, a directory without
    /// rules or seed) and waits until `/.well-known/hearth/health` answers 200. It listens on
    /// `host`; `launcher` runs it (`ip netns exec NAME` for a node in a network namespace).
    static func start(
        dataDirectory: URL,
        workingDirectory: URL,
        adminSecret: String? = "test-admin-secret",
        arguments: [String] = [],
        environment: [String: String] = [:],
        host: String = "127.0.0.1",
        launcher: [String] = []
    ) async throws -> ProcessTestServer {
        // Another test's server may take the free port first: then try another one.
        var attempt = 1
        while true {
            let port = try FreePort.find()
            var all = ["serve", "--host", host, "--port", "\(port)", "--data", dataDirectory.path] + arguments
            if let adminSecret { all += ["--admin-secret", adminSecret] }
            var executable = HearthProcess.binary
            if let first = launcher.first {
                all = launcher.dropFirst() + [executable.path] + all
                executable = URL(fileURLWithPath: first)
            }
            do {
                return try await launch(
                    all,
                    environment: environment,
                    workingDirectory: workingDirectory,
                    host: host,
                    port: port,
                    dataDirectory: dataDirectory,
                    adminSecret: adminSecret,
                    executable: executable
                )
            } catch let failure as TestFailure where attempt < 3 && failure.description.contains("already in use") {
                attempt += 1
            }
        }
    }

    /// Runs `hearth arguments…`, which must serve on `port`, and waits until it is healthy.
    static func launch(
        _ arguments: [String],
        environment: [String: String],
        workingDirectory: URL,
        host: String = "127.0.0.1",
        port: Int,
        dataDirectory: URL,
        adminSecret: String?,
        executable: URL = HearthProcess.binary
    ) async throws -> ProcessTestServer {
        let child = try Child.launch(
            arguments,
            environment: environment,
            directory: workingDirectory,
            executable: executable
        )
        let server = ProcessTestServer(
            child: child,
            host: host,
            port: port,
            dataDirectory: dataDirectory,
            adminSecret: adminSecret
        )
        do {
            try await server.waitUntilHealthy()
        } catch {
            await server.kill()
            throw error
        }
        return server
    }

    var baseURL: String { "http://\(host):\(port)" }

    /// Asks the health endpoint until it answers 200 and the data directory's `server.json`
    /// names this child on this port, for up to 60 seconds; fails early when the process exits.
    /// The port was free when picked, but another test's server may take it first: its health
    /// answer alone would send this test's requests to that server.
    func waitUntilHealthy() async throws {
        let child = self.child
        do {
            try await eventually(timeout: .seconds(60), interval: .milliseconds(50)) {
                if !child.isRunning {
                    throw TestFailure(
                        "hearth serve exited with \(child.process.terminationStatus) before it was healthy; "
                            + "stderr: \(child.stderr())"
                    )
                }
                let response = try? await request("GET", "/.well-known/hearth/health", timeout: .seconds(2))
                return response?.status == 200 && listensHere()
            }
        } catch is ConditionTimeout {
            throw TestFailure("hearth serve did not become healthy in 60 s; stderr: \(child.stderr())")
        }
    }

    /// True when `<data>/server.json`, written by a server once it listens, names this child's
    /// process and port.
    private func listensHere() -> Bool {
        let file = dataDirectory.appendingPathComponent("server.json")
        guard let data = try? Data(contentsOf: file),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let pid = (json["pid"] as? NSNumber)?.int32Value,
            let url = json["url"] as? String
        else { return false }
        return pid == child.process.processIdentifier && url.hasSuffix(":\(port)")
    }

    struct Response {
        var status: Int
        var body: String
    }

    /// How long a request that hashes a password may take. The child hashes with the real
    /// scrypt cost (N=2^15), unoptimised in a debug build, on threads in `SCHED_IDLE` that get
    /// almost no CPU while the rest of the suite keeps both cores busy.
    static let passwordHashingTimeout: Duration = .seconds(150)

    /// One request; `path` may carry a query. Adds `auth=<admin secret>` when `admin` is set.
    func request(
        _ method: String,
        _ path: String,
        body: String? = nil,
        admin: Bool = false,
        headers: [(String, String)] = [],
        timeout: Duration = .seconds(30)
    ) async throws -> Response {
        var url = baseURL + path
        if admin, let adminSecret {
            url += (path.contains("?") ? "&" : "?") + "auth=\(adminSecret)"
        }
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .bytes(ByteBuffer(string: body))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await client.execute(request, timeout: .seconds(Int64(timeout.components.seconds)))
        let bytes = try await response.body.collect(upTo: 256 << 20)
        return Response(status: Int(response.status.code), body: String(buffer: bytes))
    }

    /// Signs up `email` with `password` (`accounts:signUp`); its ID token.
    func signUp(_ email: String, password: String) async throws -> String {
        let answer = try await request(
            "POST",
            "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
            body: #"{"email":"\#(email)","password":"\#(password)","returnSecureToken":true}"#,
            timeout: Self.passwordHashingTimeout
        )
        guard answer.status == 200,
            let token = (try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])?["idToken"]
                as? String
        else { throw TestFailure("sign-up of \(email) answered \(answer.status): \(answer.body)") }
        return token
    }

    /// Sends SIGTERM and waits for the exit; returns the status and the seconds it took.
    func terminate() async throws -> (status: Int32, seconds: Double) {
        let start = ContinuousClock.now
        child.send(SIGTERM)
        let status: Int32
        do {
            status = try await child.wait(timeout: .seconds(30))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
        return (status, (ContinuousClock.now - start) / .seconds(1))
    }

    /// SIGKILLs the process and waits for it to be gone.
    func kill() async {
        child.send(SIGKILL)
        _ = try? await child.wait(timeout: .seconds(30))
        try? await client.shutdown()
    }
}
