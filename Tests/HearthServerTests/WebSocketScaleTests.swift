import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Many WebSockets at once on the lean transport (`RealtimeChannelHandler`), and the
/// Hummingbird transport still selectable.
struct WebSocketScaleTests {
    /// Opens `count` clients, `concurrency` at a time, each authenticated and listening on
    /// `/many/<i>`.
    static func openListeners(_ count: Int, port: Int, concurrency: Int = 50) async throws -> [RealtimeTestClient] {
        var clients: [RealtimeTestClient?] = Array(repeating: nil, count: count)
        var next = 0
        while next < count {
            let range = next..<min(count, next + concurrency)
            next = range.upperBound
            try await withThrowingTaskGroup(of: (Int, RealtimeTestClient).self) { group in
                for index in range {
                    group.addTask {
                        let client = try await RealtimeTestClient.connect(port: port)
                        try await client.authenticateAsAdmin()
                        let reply = try await client.response(
                            to: client.request("q", #"{"p":"/many/\#(index)","h":""}"#)
                        )
                        guard reply.body["s"] as? String == "ok" else {
                            throw TestFailure("listen \(index): \(reply.body)")
                        }
                        return (index, client)
                    }
                }
                for try await (index, client) in group { clients[index] = client }
            }
        }
        return clients.compactMap { $0 }
    }

    @Test func fiveHundredListenersEachGetTheirPush() async throws {
        try await TestServer.with { server in
            let clients = try await Self.openListeners(500, port: server.port)
            #expect(clients.count == 500)
            // One write at /many reaches every listener at its own child.
            let value = "{" + (0..<500).map { #""\#($0)":{"n":\#($0)}"# }.joined(separator: ",") + "}"
            try await server.put("/many", value)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, client) in clients.enumerated() {
                    group.addTask {
                        let push = try await client.nextPush(timeout: .seconds(20))
                        let body = try #require(push["b"] as? [String: Any])
                        #expect(body["p"] as? String == "many/\(index)")
                        #expect(canonicalJSON(body["d"]) == #"{"n":\#(index)}"#)
                    }
                }
                try await group.waitForAll()
            }
            // A write to one child reaches only its listener.
            try await server.put("/many/7/n", "70")
            let push = try await clients[7].nextPush()
            #expect((push["b"] as? [String: Any])?["p"] as? String == "many/7/n")
            try await clients[8].expectSilence(for: .milliseconds(100))
            await withTaskGroup(of: Void.self) { group in
                for client in clients { group.addTask { await client.close() } }
            }
        }
    }

    /// `HEARTH_WS_SCALE=N` (e.g. 2000): opens N idle listening connections against an in-process
    /// debug server and prints its RSS growth per connection. Outside the default run; the
    /// release figure comes from `hearth-bench --scenario ws-idle-memory` (docs/benchmarks.md).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["HEARTH_WS_SCALE"] != nil))
    func idleConnectionMemory() async throws {
        let count = Int(ProcessInfo.processInfo.environment["HEARTH_WS_SCALE"] ?? "") ?? 2000
        try await TestServer.with { server in
            let before = Self.residentKilobytes()
            let clients = try await Self.openListeners(count, port: server.port)
            try await Task.sleep(for: .seconds(3))
            let after = Self.residentKilobytes()
            // Client and server share the process: this is an upper bound for the server.
            print(
                "idle WebSockets: \(count), process RSS \(before) -> \(after) kB, \(Double(after - before) / Double(count)) kB/connection (client + server)"
            )
            await withTaskGroup(of: Void.self) { group in
                for client in clients { group.addTask { await client.close() } }
            }
        }
    }

    static func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ")[1]) ?? 0
        }
        return 0
    }
}

/// Liveness pings of the lean transport.
struct WebSocketPingTests {
    @Test func silentPeerIsDroppedAndAnsweringPeerStays() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.realtime.tickInterval = .milliseconds(50)
            configuration.realtime.webSocketPingInterval = .milliseconds(750)
        }) { server in
            let port = server.port
            // RawWebSocket never answers pings.
            let silent = try await onThread { () -> RawWebSocket in
                let socket = try RawWebSocket(port: port)
                _ = try socket.readText()
                return socket
            }
            // The Hummingbird client answers them.
            let client = try await RealtimeTestClient.connect(port: port)
            let started = ContinuousClock.now
            let code = try await onThread { try silent.readUntilDisconnected() }
            #expect(code == nil)
            #expect(ContinuousClock.now - started < .seconds(8))
            try await Task.sleep(for: .milliseconds(1600))
            #expect(!client.isEnded)
            client.send(#"{"t":"c","d":{"t":"p","d":{}}}"#)
            #expect(try await client.nextMessage() == #"{"t":"c","d":{"t":"o","d":{}}}"#)
            await client.close()
        }
    }
}
