import Foundation
import HearthServer
import HearthTestSupport
import Logging
import Testing

/// Firebase REST streaming (`Accept: text/event-stream`) against a live server.
struct SSETests {
    static let admin = "auth=\(TestServer.adminSecret)"

    @Test func streamStartsWithPutThenFollowsChanges() async throws {
        try await TestServer.with { server in
            try await server.put("/room", #"{"a":1,"b":{"c":2}}"#)
            let stream = try await SSETestStream.open(port: server.port, path: "/room.json?\(Self.admin)")
            #expect(stream.status == 200)
            #expect(stream.contentType?.hasPrefix("text/event-stream") == true)
            // The server closes the connection when the stream ends: announced, so that clients
            // do not reuse it (a pooled reuse raced the close: "I/O on closed channel").
            #expect(stream.connection?.lowercased() == "close")
            var event = try await stream.nextData()
            #expect(event.name == "put")
            #expect(event.data == #"{"path":"/","data":{"a":1,"b":{"c":2}}}"#)

            try await server.put("/room/b/c", "3")
            event = try await stream.nextData()
            #expect(event.name == "put")
            #expect(event.data == #"{"path":"/b/c","data":3}"#)

            let patch = try await server.send(
                "PATCH",
                TestServer.url("/room", admin: true),
                text: #"{"a":null,"d/e":"x"}"#
            )
            #expect(patch.status == 200)
            event = try await stream.nextData()
            #expect(event.name == "patch")
            #expect(event.json["path"] as? String == "/")
            #expect(canonicalJSON(event.json["data"]) == #"{"a":null,"d/e":"x"}"#)

            // A write above the location: the location's new value, at "/".
            try await server.put("/", #"{"room":{"z":true}}"#)
            event = try await stream.nextData()
            #expect(event.name == "put")
            #expect(event.data == #"{"path":"/","data":{"z":true}}"#)
        }
    }

    @Test func webSocketWritesReachStreams() async throws {
        try await TestServer.with { server in
            let stream = try await SSETestStream.open(port: server.port, path: "/feed.json?\(Self.admin)")
            #expect(try await stream.nextData().data == #"{"path":"/","data":null}"#)
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            _ = try await client.response(to: client.request("p", #"{"p":"/feed/one","d":"1"}"#))
            _ = try await client.response(to: client.request("m", #"{"p":"/feed","d":{"two":2,"three":3}}"#))
            var event = try await stream.nextData()
            #expect(event.name == "put")
            #expect(event.data == #"{"path":"/one","data":"1"}"#)
            event = try await stream.nextData()
            #expect(event.name == "patch")
            #expect(canonicalJSON(event.json["data"]) == #"{"three":3,"two":2}"#)
            await client.close()
        }
    }

    @Test func keepAliveArrivesOnTheConfiguredInterval() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.realtime.sseKeepAliveInterval = .milliseconds(100)
        }) { server in
            let stream = try await SSETestStream.open(port: server.port, path: "/.json?\(Self.admin)")
            #expect(try await stream.next().name == "put")
            let event = try await stream.next(timeout: .seconds(5))
            #expect(event.name == "keep-alive")
            #expect(event.data == "null")
        }
    }

    @Test func queriesSelectTheStreamedChildren() async throws {
        try await TestServer.with { server in
            try await server.put("/items", #"{"a":1,"b":2,"c":3}"#)
            let stream = try await SSETestStream.open(
                port: server.port,
                path: "/items.json?\(Self.admin)&orderBy=%22$key%22&limitToFirst=2"
            )
            let event = try await stream.nextData()
            #expect(event.name == "put")
            #expect(canonicalJSON(event.json["data"]) == #"{"a":1,"b":2}"#)
        }
    }

    @Test func nonAdminIsRefused() async throws {
        try await TestServer.with { server in
            let anonymous = try await SSETestStream.open(port: server.port, path: "/a.json")
            #expect(anonymous.status == 401)
            let user = try await SSETestStream.open(port: server.port, path: "/a.json?auth=\(TokenMinter.token())")
            #expect(user.status == 401)
            let bad = try await SSETestStream.open(port: server.port, path: "/a.json?auth=nonsense")
            #expect(bad.status == 401)
        }
    }

    @Test func shutdownEndsOpenStreams() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-sse-drain")
        defer { temporary.remove() }
        let directory = temporary.url
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var configuration = HearthServerConfiguration(
            port: 0,
            dataDirectory: directory.appendingPathComponent("data").path,
            rulesFile: directory.appendingPathComponent("rules.json").path,
            seedFile: nil,
            adminSecret: TestServer.adminSecret
        )
        // Shutdown must end the stream itself, not wait out the drain timeout: with an hour's
        // timeout, a shutdown that waited would miss the bound below.
        configuration.realtime.drainTimeout = .seconds(3600)
        let running = try await HearthServer.start(configuration: configuration, logger: logger)
        let stream = try await SSETestStream.open(port: running.port, path: "/.json?\(Self.admin)")
        #expect(try await stream.next().name == "put")
        try await completes(within: .seconds(60)) { await running.shutdown() }
        try await stream.waitUntilEnded()
    }
}
