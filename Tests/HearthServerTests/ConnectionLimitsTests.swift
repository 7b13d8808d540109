import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Slow, idle and surplus connections are reclaimed (short timeouts configured here; the
/// defaults are 30 s, 75 s and 60 s). The short ones are 3 s, not less: on a busy 2-core
/// machine a test's own thread can be starved for a second between connecting and sending,
/// and a connection that sent nothing in time is rightly closed without an answer.
struct ConnectionLimitsTests {
    static let host = "Host: 127.0.0.1\r\n"

    static func shortTimeouts(_ configuration: inout HearthServerConfiguration, _: URL) {
        configuration.connections.headerTimeout = .seconds(3)
        configuration.connections.idleTimeout = .seconds(3)
    }

    @Test func slowHeadIsAnswered408AndClosed() async throws {
        try await TestServer.with(prepare: Self.shortTimeouts) { server in
            let (response, headerBytesSent) = try await onThread { () -> (RawConnection.Response?, Int) in
                let connection = try RawConnection(port: server.port)
                connection.send("GET /a.json HTTP/1.1\r\n\(Self.host)")
                // Slowloris: one header byte at a time, forever (bounded here at 10 s).
                var sent = 0
                while sent < 100, !connection.readable(within: 100) {
                    connection.send("X")
                    sent += 1
                }
                return (try connection.readResponse(timeout: .seconds(5)), sent)
            }
            #expect(response?.status == 408, "\(String(describing: response))")
            #expect(response?.headers["connection"] == "close")
            #expect(headerBytesSent < 100)
        }
    }

    @Test func silentConnectionIsClosed() async throws {
        try await TestServer.with(prepare: Self.shortTimeouts) { server in
            let leftover = try await onThread {
                let connection = try RawConnection(port: server.port)
                return try connection.waitForClose(timeout: .seconds(10))
            }
            #expect(leftover.isEmpty, "nothing is sent to a connection that sent nothing")
        }
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        try await TestServer.with(prepare: Self.shortTimeouts) { server in
            let response = try await onThread { () -> RawConnection.Response? in
                let connection = try RawConnection(port: server.port)
                connection.send("GET /.well-known/hearth/health HTTP/1.1\r\n\(Self.host)\r\n")
                let response = try connection.readResponse()
                try connection.waitForClose(timeout: .seconds(10))
                return response
            }
            #expect(response?.status == 200)
            #expect(response?.headers["connection"] != "close")
        }
    }

    @Test func pausedBodyIsClosed() async throws {
        try await TestServer.with(prepare: Self.shortTimeouts) { server in
            try await server.put("/a", "1")
            try await onThread {
                let connection = try RawConnection(port: server.port)
                connection.send(
                    "PUT /a.json?auth=\(TestServer.adminSecret) HTTP/1.1\r\n\(Self.host)Content-Length: 10\r\n\r\n12"
                )
                try connection.waitForClose(timeout: .seconds(10))
            }
            #expect(try await server.get("/a") == "1")
        }
    }

    /// A stream outlives the idle timeout: the server is working on its request.
    @Test func eventStreamIsNotAnIdleConnection() async throws {
        try await TestServer.with(
            prepare: { configuration, directory in
                Self.shortTimeouts(&configuration, directory)
                configuration.realtime.sseKeepAliveInterval = .milliseconds(500)
            },
            run: { server in
                let stream = try await SSETestStream.open(
                    port: server.port,
                    path: "/a.json?auth=\(TestServer.adminSecret)"
                )
                _ = try await stream.nextData()
                // Eight keep-alives: four seconds, past the idle timeout.
                for _ in 0..<8 {
                    #expect(try await stream.next().name == "keep-alive")
                }
                try await server.put("/a", "2")
                #expect(try await stream.nextData().data == #"{"path":"/","data":2}"#)
                stream.cancel()
            }
        )
    }

    @Test func webSocketThatNeitherAuthenticatesNorListensIsClosed() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in
                configuration.realtime.authOrListenTimeout = .seconds(3)
                configuration.realtime.tickInterval = .milliseconds(100)
                try #"{"rules": {".read": true}}"#.write(
                    toFile: configuration.rulesFile,
                    atomically: true,
                    encoding: .utf8
                )
            },
            run: { server in
                // Each client acts as soon as it is connected (a loaded machine may take seconds
                // between connections); the silent one connects last.
                let authenticated = try await RealtimeTestClient.connect(port: server.port)
                try await authenticated.authenticateAsAdmin()
                let listening = try await RealtimeTestClient.connect(port: server.port)
                let listen = listening.request("q", #"{"p":"/a","h":""}"#)
                #expect(try await listening.response(to: listen).body["s"] as? String == "ok")
                let idle = try await RealtimeTestClient.connect(port: server.port)

                try await idle.waitUntilEnded()
                #expect(idle.closeCode == 1008)
                // Both others opened before the idle one was closed, and still answer.
                let put = authenticated.request("p", #"{"p":"/a","d":1}"#)
                #expect(try await authenticated.response(to: put).body["s"] as? String == "ok")
                #expect(try await listening.nextPush()["a"] as? String == "d")
                #expect(!listening.isEnded && !authenticated.isEnded)
                await listening.close()
                await authenticated.close()
            }
        )
    }

    @Test func anonymousWebSocketThatWritesOrHoldsOnDisconnectStaysOpen() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in
                configuration.realtime.authOrListenTimeout = .seconds(3)
                configuration.realtime.tickInterval = .milliseconds(100)
                try #"{"rules": {".read": false, ".write": true}}"#.write(
                    toFile: configuration.rulesFile,
                    atomically: true,
                    encoding: .utf8
                )
            },
            run: { server in
                // Each client acts as soon as it is connected; the silent one connects last.
                let presence = try await RealtimeTestClient.connect(port: server.port)
                let register = presence.request("o", #"{"p":"/online/ada","d":null}"#)
                #expect(try await presence.response(to: register).body["s"] as? String == "ok")
                let online = presence.request("p", #"{"p":"/online/ada","d":true}"#)
                #expect(try await presence.response(to: online).body["s"] as? String == "ok")
                let writer = try await RealtimeTestClient.connect(port: server.port)
                // The writer sends a put every 300 ms (not waiting for the answers, so a slow
                // machine does not stretch the gaps) until the silent connection is closed for
                // its silence, then for longer than the timeout again.
                var puts: [Int] = []
                func write() {
                    let count = puts.count + 1
                    puts.append(writer.request("p", "{\"p\":\"/log/\(count)\",\"d\":\(count)}"))
                }
                write()
                let idle = try await RealtimeTestClient.connect(port: server.port)
                while !idle.isEnded, puts.count < 200 {
                    write()
                    try await Task.sleep(for: .milliseconds(300))
                }
                try await idle.waitUntilEnded()
                #expect(idle.closeCode == 1008)
                for _ in 0..<12 {
                    write()
                    try await Task.sleep(for: .milliseconds(300))
                }
                for put in puts {
                    #expect(try await writer.response(to: put).body["s"] as? String == "ok")
                }
                // The presence holder, silent all along, is open: its onDisconnect has not run.
                #expect(!writer.isEnded && !presence.isEnded)
                #expect(try await server.get("/online/ada") == "true")
                await writer.close()
                await presence.close()
            }
        )
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
