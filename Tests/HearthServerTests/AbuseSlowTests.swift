import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Abuse: connections held open by sending too little (slowloris on the head, a body dribbled
/// a byte at a time, a WebSocket handshake never finished, a client that never closes after
/// `Connection: close`) are closed within a bound, while the control client keeps working.
/// The header timeout is 2 s here (30 s by default).
struct AbuseSlowTests {
    @Test func headDribbledAByteAtATimeIsAnswered408() async throws {
        try await AbuseServer.with { server, control in
            async let attack = onThread { () -> (RawConnection.Response?, Int) in
                let connection = try RawConnection(port: server.port, from: AbuseServer.attacker)
                connection.send("GET /open.json HTTP/1.1\r\n")
                let sent = connection.dribble("X", atMost: 200)
                let response = try connection.readResponse(timeout: .seconds(30))
                try connection.waitForClose(timeout: .seconds(30))
                return (response, sent)
            }
            try await control.check()
            let (response, sent) = try await attack
            #expect(response?.status == 408, "\(String(describing: response))")
            #expect(response?.body.contains("Request head not received") == true, "\(String(describing: response))")
            #expect(sent < 400, "closed after \(sent) bytes")
        }
    }

    @Test func bodyDribbledAByteAtATimeIsClosed() async throws {
        try await AbuseServer.with(configure: { configuration, _ in
            configuration.connections.minBodyBytesPerSecond = 1_000
        }) { server, control in
            async let attack = onThread { () -> Int in
                let connection = try RawConnection(port: server.port, from: AbuseServer.attacker)
                connection.send("PUT /open/slow.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n\"")
                // Each byte well inside the idle timeout (75 s): only the minimum rate ends it.
                let sent = 1 + connection.dribble("a", atMost: 199)
                try connection.waitForClose(timeout: .seconds(30))
                return sent
            }
            try await control.check()
            let sent = try await attack
            #expect(sent < 200, "closed after \(sent) body bytes")
            #expect(try await server.get("/open/slow") == "null", "nothing was written")
        }
    }

    @Test func webSocketHandshakeNeverFinishedIsAnswered408() async throws {
        try await AbuseServer.with { server, control in
            async let attack = onThread { () -> RawConnection.Response? in
                let connection = try RawConnection(port: server.port, from: AbuseServer.attacker)
                connection.send(
                    "GET /.ws?v=5 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                )
                let response = try connection.readResponse(timeout: .seconds(30))
                try connection.waitForClose(timeout: .seconds(30))
                return response
            }
            try await control.check()
            let response = try await attack
            #expect(response?.status == 408, "\(String(describing: response))")
        }
    }

    /// After the upgrade: a frame whose bytes are dribbled is no request, so an anonymous
    /// connection sending only that is closed by the auth-or-listen timeout (60 s by default).
    @Test func webSocketFrameDribbledAByteAtATimeIsClosed() async throws {
        try await AbuseServer.with(configure: { configuration, _ in
            // 6 s: the control client, anonymous until it authenticates, must get there first
            // (a loaded full run once took longer than 3 s between its connect and its auth).
            configuration.realtime.authOrListenTimeout = .seconds(6)
            configuration.realtime.tickInterval = .milliseconds(100)
        }) { server, control in
            async let attack = onThread { () -> (Int, Int?) in
                let socket = try RawWebSocket(port: server.port, from: AbuseServer.attacker)
                _ = try socket.readText()  // hello
                // A 1,000-byte text frame, its bytes 50 ms apart (at most 20 s of them).
                guard socket.sendRaw([0x81, 0x80 | 126, 0x03, 0xE8, 1, 2, 3, 4]) else { return (0, nil) }
                var sent = 0
                while sent < 400, socket.sendRaw([0x20]) {
                    sent += 1
                    usleep(50_000)
                }
                return (sent, try socket.readUntilDisconnected())
            }
            try await control.check()
            let (sent, code) = try await attack
            #expect(sent < 400, "closed after \(sent) bytes")
            #expect(code == nil || code == 1008, "close code \(String(describing: code))")
        }
    }

    /// Regression: after a `Connection: close` request (or an HTTP/1.0 one) the server closed
    /// only its output, and the connection stayed counted against the address until the
    /// client closed or the idle timeout (75 s) passed.
    @Test(arguments: ["HTTP/1.1\r\nConnection: close", "HTTP/1.0"])
    func connectionCloseFreesTheAddressesPlaceAtOnce(_ version: String) async throws {
        try await AbuseServer.with(configure: { configuration, _ in
            configuration.connections.maxConnectionsPerAddress = 2
        }) { server, control in
            let (first, later) = try await onThread { () -> (RawConnection.Response?, [Int?]) in
                let request = "GET /.well-known/hearth/health \(version)\r\nHost: 127.0.0.1\r\n\r\n"
                // The attacker reads the answer and the end, and never closes its side.
                let lingering = try RawConnection(port: server.port, from: AbuseServer.attacker)
                lingering.send(request)
                let first = try lingering.readResponse(timeout: .seconds(30))
                try lingering.waitForClose(timeout: .seconds(30))
                // Both places are free: two keep-alive connections are answered and held.
                var held: [RawConnection] = []
                var later: [Int?] = []
                // Within 10 s (the server frees the place as soon as it sees the close; it held
                // it for the idle timeout, 75 s, before).
                let deadline = ContinuousClock.now + .seconds(10)
                for _ in 0..<2 {
                    var status: Int?
                    while status != 200, ContinuousClock.now < deadline {
                        if status != nil { usleep(10_000) }
                        let connection = try RawConnection(port: server.port, from: AbuseServer.attacker)
                        connection.send(AbuseServer.health + "\r\n")
                        status = try connection.readResponse(timeout: .seconds(30))?.status ?? 0
                        if status == 200 { held.append(connection) }
                    }
                    later.append(status)
                }
                _ = (lingering, held)
                return (first, later)
            }
            #expect(first?.status == 200)
            #expect(first?.headers["connection"] == "close")
            #expect(later == [200, 200])
            try await control.check()
        }
    }
}
