import Foundation
import HearthTestSupport
import Testing

/// A wave of disconnects (a mobile network flapping, a load balancer restarting): 10,000
/// WebSocket clients that end TCP with a FIN and no close frame. Their slots must be free again
/// at once, so the next wave is served instead of answered 503. A `hearth serve` child process,
/// so that its connections and the test's have a file-descriptor limit each.
struct DisconnectWaveProcessTests {
    /// How many connections the test process can hold (each needs a descriptor here and one in
    /// the server): 10,000, or fewer where the hard limit is lower.
    static func crowdSize() -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return 1_000 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(resource, &limit)
            _ = getrlimit(resource, &limit)
        }
        return max(100, min(10_000, Int(clamping: limit.rlim_cur) - 512))
    }

    /// How soon the slots must be free: 2 s, as promised. The test runs the debug build, in
    /// which NIOExtras' `ChannelCollector` (Hummingbird's quiescing helper) copies its table of
    /// open channels on every accept and close, which the optimizer elides: 10,000 closes take
    /// ~1.3 s of an idle 2-core box there, ~3 ms in a release build
    /// (`scripts/bench/connection-end.py`), so the debug bound leaves room for a busy CI box: a
    /// clean clone's `.ci/run`, with the cluster tests' PostgreSQL and nodes running beside it,
    /// still had 4,008 of 10,000 open after 5 s. Before connections ended with their client's
    /// FIN, they stayed ~60 s.
    #if DEBUG
    static let bound: Duration = .seconds(20)
    #else
    static let bound: Duration = .seconds(2)
    #endif

    static func openConnections(_ server: ProcessTestServer) async throws -> Int {
        let reply = try await server.request("GET", "/metrics", admin: true)
        guard reply.status == 200, let value = PrometheusText.sample("hearth_open_connections", in: reply.body)
        else { throw TestFailure("no hearth_open_connections in /metrics: \(reply.status)") }
        return Int(value)
    }

    @Test func aWaveOfClosedWebSocketsFreesTheWholeCapAtOnce() async throws {
        let count = Self.crowdSize()
        if count < 10_000 { print("DisconnectWaveProcessTests: the open-file limit allows \(count) connections") }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The cap is the crowd and the metrics client's connection: the second wave fits only
        // if every slot of the first came back. The crowd never signs in nor answers pings, and
        // opening it took over a minute in a whole suite on a busy two-core box: the server's
        // own timeouts for such clients (60 s, 90 s) are set past the test, so only the wave
        // ends them.
        let server = try await ProcessTestServer.start(
            dataDirectory: directory.appending("data"),
            workingDirectory: directory.url,
            arguments: [
                "--max-connections", "\(count + 2)", "--websocket-auth-timeout", "0", "--liveness-timeout", "3600",
            ]
        )
        do {
            let base = try await Self.openConnections(server)
            let first = try await WebSocketCrowd.open(port: server.port, count: count)
            #expect(try await Self.openConnections(server) >= base + count)
            first.closeAll()
            let closedAt = ContinuousClock.now
            let open = try await eventually(timeout: Self.bound, interval: .milliseconds(20)) {
                try await Self.openConnections(server)
            } until: {
                $0 <= base
            }
            let seconds = (ContinuousClock.now - closedAt) / .seconds(1)
            #expect(
                open <= base,
                "\(open) connections still open \(Self.bound) after \(count) clients left (\(base) before)"
            )
            print("DisconnectWaveProcessTests: \(count) connections gone in \(seconds) s")
            // The whole cap is served again.
            let second = try await WebSocketCrowd.open(port: server.port, count: count)
            #expect(second.count == count)
            second.closeAll()
        } catch {
            await server.kill()
            throw error
        }
        await server.kill()
    }
}
