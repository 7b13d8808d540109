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
            try await clients[8].expectNoPushesBeforeFence(at: "/fence")
            await withTaskGroup(of: Void.self) { group in
                for client in clients { group.addTask { await client.close() } }
            }
        }
    }
}

/// Liveness pings of the lean transport.
struct WebSocketPingTests {
    @Test func silentPeerIsDroppedAndAnsweringPeerStays() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.realtime.tickInterval = .milliseconds(50)
            // The answering peer has half of this to answer each ping: 2 s, not 1, so a CI box
            // that stalls its thread for a second (a fresh-clone run failed so) does not drop
            // it; the silent peer's drop still comes well within the raw socket's 10 s.
            configuration.realtime.livenessTimeout = .milliseconds(4000)
        }) { server in
            let port = server.port
            // Two raw sockets (they never answer pings on their own): one stays silent, the
            // other answers each ping with a pong, on a thread of its own.
            let silent = try await onThread { () -> RawWebSocket in
                let socket = try RawWebSocket(port: port)
                _ = try socket.readText()
                return socket
            }
            // Opened and answering on one thread from the start: no hop through the cooperative
            // pool between its hello and its first pong.
            let answering = StartedThread { () -> RawWebSocket in
                let socket = try RawWebSocket(port: port)
                _ = try socket.readText()
                try socket.answerPings(3)
                return socket
            }
            // Bounded by the raw socket's 10 s read timeout (the drop comes after the liveness
            // timeout).
            let code = try await onThread { try silent.readUntilDisconnected() }
            #expect(code == nil)
            // The server pings a connection only after half the timeout in silence, and drops
            // one silent for the whole timeout: a third ping means the first two answers were
            // taken. No clock in the assertion; each wait is for a frame.
            let answered = try await answering.value()
            try answered.sendText(#"{"t":"c","d":{"t":"p","d":{}}}"#)
            #expect(try answered.readText() == #"{"t":"c","d":{"t":"o","d":{}}}"#)
            answered.abort()
        }
    }
}
