import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Idle and surplus connections are reclaimed. The timeouts' logic is tested on an
/// `EmbeddedEventLoop` whose time the test moves (`HTTPConnectionGuardTests`, and
/// `RealtimeConnectionTests` for the auth-or-listen timeout); here one check per timeout that
/// the configured value reaches the server, with a timeout short enough to wait for the close
/// (never a sleep followed by a check that nothing happened). Each such connection sends
/// nothing the timeout could race: a starved test thread only makes the close come later.
struct ConnectionLimitsTests {
    static let host = "Host: 127.0.0.1\r\n"

    /// `headerTimeout`: a connection that sends nothing is closed without an answer.
    @Test func silentConnectionIsClosedAfterTheHeaderTimeout() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.connections.headerTimeout = .milliseconds(200)
        }) { server in
            let leftover = try await onThread {
                let connection = try RawConnection(port: server.port)
                // The idle timeout (75 s) would close it too: 30 s outlasts a stalled machine.
                return try connection.waitForClose(timeout: .seconds(30))
            }
            #expect(leftover.isEmpty, "nothing is sent to a connection that sent nothing")
        }
    }

    /// `idleTimeout`: a keep-alive connection is closed after its answer (the header timeout,
    /// the default 30 s, is not what closes it).
    @Test func idleKeepAliveConnectionIsClosedAfterTheIdleTimeout() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.connections.idleTimeout = .milliseconds(200)
        }) { server in
            let response = try await onThread { () -> RawConnection.Response? in
                let connection = try RawConnection(port: server.port)
                connection.send("GET /.well-known/hearth/health HTTP/1.1\r\n\(Self.host)\r\n")
                let response = try connection.readResponse()
                // Under the 30 s header timeout, which would close it too.
                try connection.waitForClose(timeout: .seconds(20))
                return response
            }
            #expect(response?.status == 200)
            #expect(response?.headers["connection"] != "close")
        }
    }

    /// `authOrListenTimeout` (with the ticker's `tickInterval`): an anonymous WebSocket that
    /// sends nothing is closed with 1008.
    @Test func webSocketThatNeitherAuthenticatesNorListensIsClosed() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.realtime.authOrListenTimeout = .milliseconds(300)
            configuration.realtime.tickInterval = .milliseconds(50)
        }) { server in
            let idle = try await RealtimeTestClient.connect(port: server.port)
            try await idle.waitUntilEnded()
            #expect(idle.closeCode == 1008)
        }
    }

    @Test func oneAddressOverItsShareIsAnswered429WhileTheServerHasRoom() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in
                configuration.connections.maxConnectionsPerAddress = 2
                configuration.connections.limitsLoopback = true
            },
            run: { server in
                let health = "GET /.well-known/hearth/health HTTP/1.1\r\n\(Self.host)"
                let (heldStatuses, refused, afterOneClosed) = try await onThread {
                    () -> ([Int?], RawConnection.Response?, Int?) in
                    var held = try (0..<2).map { _ in try RawConnection(port: server.port) }
                    var statuses: [Int?] = []
                    for connection in held {
                        connection.send(health + "\r\n")
                        statuses.append(try connection.readResponse()?.status)
                    }
                    let connection = try RawConnection(port: server.port)
                    connection.send(health + "\r\n")
                    let refused = try connection.readResponse()
                    try connection.waitForClose()
                    // The client closes one: its place is free once the server sees it go.
                    held.removeFirst()
                    var status: Int?
                    for _ in 0..<1_000 where status != 200 {
                        let again = try RawConnection(port: server.port)
                        again.send(health + "Connection: close\r\n\r\n")
                        status = try again.readResponse()?.status
                        if status != 200 { usleep(10_000) }
                    }
                    _ = held
                    return (statuses, refused, status)
                }
                #expect(heldStatuses == [200, 200])
                #expect(refused?.status == 429)
                #expect(refused?.body.contains("Too many connections from your address") == true)
                #expect(afterOneClosed == 200)
            }
        )
    }

    @Test func connectionsOverTheCapAreAnswered503() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in configuration.connections.maxConnections = 3 },
            run: { server in
                let health = "GET /.well-known/hearth/health HTTP/1.1\r\n\(Self.host)"
                let (heldStatuses, refused) = try await onThread { () -> ([Int?], RawConnection.Response?) in
                    let held = try (0..<3).map { _ in try RawConnection(port: server.port) }
                    // Each held connection is accepted: it is answered, and stays open.
                    var statuses: [Int?] = []
                    for connection in held {
                        connection.send(health + "\r\n")
                        statuses.append(try connection.readResponse()?.status)
                    }
                    let connection = try RawConnection(port: server.port)
                    connection.send(health + "\r\n")
                    let refused = try connection.readResponse()
                    try connection.waitForClose()
                    // Closing (this one, then the others on return) frees places.
                    held[0].send(health + "Connection: close\r\n\r\n")
                    _ = try held[0].readResponse()
                    try held[0].waitForClose()
                    _ = held
                    return (statuses, refused)
                }
                #expect(heldStatuses == [200, 200, 200])
                #expect(refused?.status == 503)
                #expect(refused?.headers["retry-after"] == "1")
                #expect(refused?.body.contains("Too many connections") == true)
                try await eventually {
                    try await onThread {
                        let connection = try RawConnection(port: server.port)
                        connection.send(health + "Connection: close\r\n\r\n")
                        return try connection.readResponse()?.status == 200
                    }
                }
            }
        )
    }
}
