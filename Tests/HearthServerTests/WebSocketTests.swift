import Foundation
import HearthCore
import HearthServer
import HearthTestSupport
import Logging
import Testing

/// The realtime protocol over real WebSockets against a live server.
struct WebSocketTests {
    @Test func helloEchoesTheHostAndVersion() async throws {
        try await TestServer.with { server in
            let client = try await RealtimeTestClient.connect(port: server.port, ns: "chat", readHello: false)
            let hello = try await client.nextJSON()
            #expect(hello["t"] as? String == "c")
            let control = try #require(hello["d"] as? [String: Any])
            #expect(control["t"] as? String == "h")
            let body = try #require(control["d"] as? [String: Any])
            #expect(body["v"] as? String == "5")
            #expect(body["h"] as? String == "127.0.0.1:\(server.port)")
            let session = try #require(body["s"] as? String)
            // 128 random bits in hex: not guessable from another connection's id.
            #expect(session.count == 32 && session.allSatisfy(\.isHexDigit))
            let ts = try #require(body["ts"] as? Double)
            #expect(abs(ts / 1000 - Date().timeIntervalSince1970) < 60)
            let second = try await RealtimeTestClient.connect(port: server.port, ns: "chat", readHello: false)
            let secondHello = try await second.nextJSON()
            let secondBody = (secondHello["d"] as? [String: Any])?["d"] as? [String: Any]
            #expect(secondBody?["s"] as? String != session)
            await second.close()
            await client.close()
        }
    }

    static let refusedQueries = ["v=4", "v=5&ns=bad.name", "ns=default"]

    @Test(arguments: refusedQueries)
    func upgradeIsRefused(query: String) async throws {
        try await TestServer.with { server in
            let port = server.port
            await #expect(throws: (any Error).self) {
                _ = try await onThread { try RawWebSocket(port: port, query: query) }
            }
        }
    }

    @Test func protocolPingIsAnswered() async throws {
        try await TestServer.with { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            client.send(#"{"t":"c","d":{"t":"p","d":{}}}"#)
            #expect(try await client.nextMessage() == #"{"t":"c","d":{"t":"o","d":{}}}"#)
            client.send("0")  // keep-alive: ignored
            // Nothing answers it: the next request's answer is the next message.
            let stats = try await client.expectNothingBefore(answerTo: client.request("s", #"{"c":{}}"#))
            #expect(stats["s"] as? String == "ok")
            await client.close()
        }
    }

    @Test func listenGetsDataThenOk() async throws {
        try await TestServer.with { server in
            try await server.put("/rooms", #"{"a":{"name":"A"},"b":{"name":"B"}}"#)
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            let id = client.request("q", #"{"p":"/rooms","h":""}"#)
            let reply = try await client.response(to: id)
            #expect(reply.body["s"] as? String == "ok")
            #expect(reply.pushes.count == 1)
            let push = try #require(reply.pushes.first)
            #expect(push["a"] as? String == "d")
            let body = try #require(push["b"] as? [String: Any])
            #expect(body["p"] as? String == "rooms")
            #expect(canonicalJSON(body["d"]) == #"{"a":{"name":"A"},"b":{"name":"B"}}"#)
            await client.close()
        }
    }

    @Test func listenWithMatchingHashSendsNoData() async throws {
        try await TestServer.with { server in
            try await server.put("/n", "5")
            let hash = ValueHash.hash(.leaf(.number(5), priority: nil))
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            let id = client.request("q", #"{"p":"/n","h":"\#(hash)"}"#)
            let reply = try await client.response(to: id)
            #expect(reply.body["s"] as? String == "ok")
            #expect(reply.pushes.isEmpty)
            await client.close()
        }
    }

    @Test func restWriteReachesListener() async throws {
        try await TestServer.with { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            let id = client.request("q", #"{"p":"/chat","h":""}"#)
            _ = try await client.response(to: id)
            try await server.put("/chat/m1", #"{"text":"hi"}"#)
            let push = try await client.nextPush()
            #expect(push["a"] as? String == "d")
            let body = try #require(push["b"] as? [String: Any])
            #expect(body["p"] as? String == "chat/m1")
            #expect(canonicalJSON(body["d"]) == #"{"text":"hi"}"#)
            await client.close()
        }
    }

    @Test func putMergeAndGetEndToEnd() async throws {
        try await TestServer.with { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            var reply = try await client.response(to: client.request("p", #"{"p":"/x","d":{"y":1}}"#))
            #expect(reply.body["s"] as? String == "ok")
            reply = try await client.response(to: client.request("m", #"{"p":"/x","d":{"z":2,"w/v":3}}"#))
            #expect(reply.body["s"] as? String == "ok")
            #expect(JSONCompare.equal(try await server.get("/x"), #"{"y":1,"z":2,"w":{"v":3}}"#))
            reply = try await client.response(to: client.request("g", #"{"p":"/x","q":{}}"#))
            #expect(reply.body["s"] as? String == "ok")
            #expect(canonicalJSON(reply.body["d"]) == #"{"w":{"v":3},"y":1,"z":2}"#)
            // A priority put and a server timestamp.
            reply = try await client.response(to: client.request("p", #"{"p":"/x/y/.priority","d":7}"#))
            #expect(reply.body["s"] as? String == "ok")
            reply = try await client.response(to: client.request("p", #"{"p":"/t","d":{".sv":"timestamp"}}"#))
            #expect(reply.body["s"] as? String == "ok")
            let stamp = try #require(Double(try await server.get("/t")))
            #expect(abs(stamp / 1000 - Date().timeIntervalSince1970) < 60)
            await client.close()
        }
    }

    @Test func writesReachOtherClientsInOrder() async throws {
        try await TestServer.with { server in
            let listener = try await RealtimeTestClient.connect(port: server.port)
            let writer = try await RealtimeTestClient.connect(port: server.port)
            try await listener.authenticateAsAdmin()
            try await writer.authenticateAsAdmin()
            _ = try await listener.response(to: listener.request("q", #"{"p":"/counter","h":""}"#))
            var last = 0
            for value in 1...30 { last = writer.request("p", #"{"p":"/counter","d":\#(value)}"#) }
            _ = try await writer.response(to: last)
            var seen: [Int] = []
            while seen.last != 30 {
                let push = try await listener.nextPush()
                let body = try #require(push["b"] as? [String: Any])
                seen.append(try #require(body["d"] as? Int))
            }
            #expect(seen == Array(1...30))
            await listener.close()
            await writer.close()
        }
    }

    @Test func concurrentTransactionsEndAtTheExactSum() async throws {
        try await TestServer.with { server in
            try await server.put("/count", "0")
            let perClient = 15
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        let client = try await RealtimeTestClient.connect(port: server.port)
                        try await client.authenticateAsAdmin()
                        var retries = 0
                        for _ in 0..<perClient {
                            while true {
                                let read = try await client.response(to: client.request("g", #"{"p":"/count","q":{}}"#))
                                let current = try #require(read.body["d"] as? Int)
                                let hash = ValueHash.hash(.leaf(.number(Double(current)), priority: nil))
                                let write = try await client.response(
                                    to: client.request("p", #"{"p":"/count","d":\#(current + 1),"h":"\#(hash)"}"#)
                                )
                                let status = write.body["s"] as? String
                                if status == "ok" { break }
                                #expect(status == "datastale")
                                retries += 1
                            }
                        }
                        await client.close()
                        return retries
                    }
                }
                for try await _ in group {}
            }
            #expect(try await server.get("/count") == "\(2 * perClient)")
        }
    }

    @Test func transactionOnMissingDataUsesTheEmptyHash() async throws {
        try await TestServer.with { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            var reply = try await client.response(to: client.request("p", #"{"p":"/new","d":1,"h":""}"#))
            #expect(reply.body["s"] as? String == "ok")
            reply = try await client.response(to: client.request("p", #"{"p":"/new","d":2,"h":""}"#))
            #expect(reply.body["s"] as? String == "datastale")
            #expect(try await server.get("/new") == "1")
            await client.close()
        }
    }

    @Test func onDisconnectRunsWhenTheSocketDrops() async throws {
        try await TestServer.with { server in
            try await server.put("/presence/ada", #""online""#)
            let port = server.port
            try await onThread {
                let socket = try RawWebSocket(port: port)
                _ = try socket.readText()  // hello
                try socket.sendText(#"{"t":"d","d":{"r":1,"a":"auth","b":{"cred":"\#(TestServer.adminSecret)"}}}"#)
                _ = try socket.awaitResponse(to: 1)
                try socket.sendText(#"{"t":"d","d":{"r":2,"a":"o","b":{"p":"/presence/ada","d":"offline"}}}"#)
                try socket.sendText(#"{"t":"d","d":{"r":3,"a":"om","b":{"p":"/last","d":{"ada":true}}}}"#)
                _ = try socket.awaitResponse(to: 3)
                socket.abort()
            }
            // The writes run in their order, each once the one before is acknowledged (in a
            // cluster, committed): a read may see the first before the second.
            try await eventually {
                try await server.get("/presence/ada") == #""offline""#
            }
            try await eventually {
                try await server.get("/last") == #"{"ada":true}"#
            }
        }
    }

    @Test func cancelledOnDisconnectDoesNotRun() async throws {
        try await TestServer.with { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            _ = try await client.response(to: client.request("o", #"{"p":"/a/b","d":1}"#))
            _ = try await client.response(to: client.request("o", #"{"p":"/c","d":2}"#))
            let reply = try await client.response(to: client.request("oc", #"{"p":"/a","d":null}"#))
            #expect(reply.body["s"] as? String == "ok")
            await client.close()
            try await eventually { try await server.get("/c") == "2" }
            #expect(try await server.get("/a") == "null")
        }
    }

    @Test func malformedFrameClosesOnlyThatConnection() async throws {
        try await TestServer.with { server in
            let bad = try await RealtimeTestClient.connect(port: server.port)
            let good = try await RealtimeTestClient.connect(port: server.port)
            try await good.authenticateAsAdmin()
            bad.send("this is not json")
            try await bad.waitUntilEnded()
            #expect(bad.closeCode == 1002)
            let reply = try await good.response(to: good.request("p", #"{"p":"/ok","d":true}"#))
            #expect(reply.body["s"] as? String == "ok")
            await good.close()
        }
    }

    @Test func unknownActionAndBadPathGetFailures() async throws {
        try await TestServer.with { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            var reply = try await client.response(to: client.request("zz", "{}"))
            #expect(reply.body["s"] as? String == "failure")
            reply = try await client.response(to: client.request("p", #"{"p":"/a.b","d":1}"#))
            #expect(reply.body["s"] as? String == "failure")
            reply = try await client.response(to: client.request("p", #"{"p":"/fine","d":1}"#))
            #expect(reply.body["s"] as? String == "ok")
            await client.close()
        }
    }

    @Test func nonAdminIsDenied() async throws {
        try await TestServer.with { server in
            try await server.put("/secret", "1")
            let client = try await RealtimeTestClient.connect(port: server.port)
            var reply = try await client.response(to: client.request("q", #"{"p":"/secret","h":""}"#))
            #expect(reply.body["s"] as? String == "permission_denied")
            #expect(reply.body["d"] as? String == "Permission denied")
            #expect(reply.pushes.isEmpty)
            reply = try await client.response(to: client.request("auth", #"{"cred":"\#(TokenMinter.token())"}"#))
            #expect(reply.body["s"] as? String == "ok")
            let auth = try #require((reply.body["d"] as? [String: Any])?["auth"] as? [String: Any])
            #expect(auth["uid"] as? String == "alice")
            reply = try await client.response(to: client.request("p", #"{"p":"/secret","d":2}"#))
            #expect(reply.body["s"] as? String == "permission_denied")
            reply = try await client.response(to: client.request("g", #"{"p":"/secret","q":{}}"#))
            #expect(reply.body["s"] as? String == "permission_denied")
            reply = try await client.response(to: client.request("o", #"{"p":"/secret","d":3}"#))
            #expect(reply.body["s"] as? String == "permission_denied")
            #expect(try await server.get("/secret") == "1")
            await client.close()
        }
    }

    @Test func invalidAndExpiredTokensAreRefused() async throws {
        try await TestServer.with { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            var reply = try await client.response(to: client.request("auth", #"{"cred":"nonsense"}"#))
            #expect(reply.body["s"] as? String == "invalid_token")
            let wrongKey = TokenMinter.token(secret: "other")
            reply = try await client.response(to: client.request("auth", #"{"cred":"\#(wrongKey)"}"#))
            #expect(reply.body["s"] as? String == "invalid_token")
            let expired = TokenMinter.token(expiresIn: -10, issuedAgo: 100)
            reply = try await client.response(to: client.request("auth", #"{"cred":"\#(expired)"}"#))
            #expect(reply.body["s"] as? String == "expired_token")
            let unsigned = TokenMinter.token(algorithm: "none")
            reply = try await client.response(to: client.request("auth", #"{"cred":"\#(unsigned)"}"#))
            #expect(reply.body["s"] as? String == "invalid_token")
            reply = try await client.response(to: client.request("gauth", #"{"cred":"owner"}"#))
            #expect(reply.body["s"] as? String == "invalid_token")
            await client.close()
        }
    }

    @Test func emulatorAcceptsOwnerAndUnsignedTokens() async throws {
        try await TestServer.with(prepare: { configuration, _ in configuration.emulator = true }) { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            var reply = try await client.response(to: client.request("gauth", #"{"cred":"owner"}"#))
            #expect(reply.body["s"] as? String == "ok")
            reply = try await client.response(to: client.request("p", #"{"p":"/by-owner","d":1}"#))
            #expect(reply.body["s"] as? String == "ok")
            let unsigned = TokenMinter.token(algorithm: "none")
            reply = try await client.response(to: client.request("auth", #"{"cred":"\#(unsigned)"}"#))
            #expect(reply.body["s"] as? String == "ok")
            await client.close()
        }
    }

    @Test func largeMessagesCrossInBothDirections() async throws {
        try await TestServer.with { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            // 40,000 three-byte characters: one WebSocket frame of 120 KB from the client.
            let text = String(repeating: "€", count: 40_000)
            let reply = try await client.response(to: client.request("p", #"{"p":"/big","d":"\#(text)"}"#))
            #expect(reply.body["s"] as? String == "ok")
            let read = try await client.response(to: client.request("g", #"{"p":"/big","q":{}}"#))
            #expect(read.body["d"] as? String == text)
            await client.close()
        }
    }

    @Test func slowConsumerIsClosedWithoutHurtingOthers() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.realtime.maxQueuedBytes = 256 << 10
        }) { server in
            let port = server.port
            let slow = try await onThread { () -> RawWebSocket in
                let socket = try RawWebSocket(port: port, receiveBufferBytes: 4096)
                _ = try socket.readText()
                try socket.sendText(#"{"t":"d","d":{"r":1,"a":"auth","b":{"cred":"\#(TestServer.adminSecret)"}}}"#)
                _ = try socket.awaitResponse(to: 1)
                try socket.sendText(#"{"t":"d","d":{"r":2,"a":"q","b":{"p":"/flood","h":""}}}"#)
                _ = try socket.awaitResponse(to: 2)
                return socket
            }
            let healthy = try await RealtimeTestClient.connect(port: port)
            try await healthy.authenticateAsAdmin()
            _ = try await healthy.response(to: healthy.request("q", #"{"p":"/flood","h":""}"#))
            // The slow client stops reading: ~40 MB of pushes cannot all fit in socket buffers.
            let value = "\"" + String(repeating: "x", count: 512 << 10) + "\""
            for index in 0..<80 {
                try await server.put("/flood/\(index % 4)", value)
                _ = try await healthy.nextPush()
            }
            // Closed with 1008, or dropped when even the close frame could not be flushed.
            let code = try await onThread { try slow.readUntilDisconnected() }
            #expect(code == nil || code == 1008, "closed with \(String(describing: code))")
            let reply = try await healthy.response(to: healthy.request("g", #"{"p":"/flood/0","q":{}}"#))
            #expect(reply.body["s"] as? String == "ok")
            await healthy.close()
            slow.abort()
        }
    }

    @Test func expiredTokenIsRevokedOnTick() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.realtime.tickInterval = .milliseconds(100)
        }) { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            // `exp` is whole seconds (truncated): 3 s ahead leaves at least 2 s for the `auth`
            // to be answered before the token expires, even on a loaded machine.
            let token = TokenMinter.token(expiresIn: 3)
            let reply = try await client.response(to: client.request("auth", #"{"cred":"\#(token)"}"#))
            #expect(reply.body["s"] as? String == "ok")
            let push = try await client.nextPush(timeout: .seconds(8))
            #expect(push["a"] as? String == "ac")
            #expect((push["b"] as? [String: Any])?["s"] as? String == "expired_token")
            await client.close()
        }
    }

    @Test func unauthRevokesListensNoLongerReadable() async throws {
        try await TestServer.with(rules: #"{"rules": {"public": {".read": true, ".write": true}}}"#) { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            _ = try await client.response(to: client.request("q", #"{"p":"/private","h":""}"#))
            let reply = try await client.response(to: client.request("unauth", "{}"))
            #expect(reply.body["s"] as? String == "ok")
            let push = try await client.nextPush()
            #expect(push["a"] as? String == "c")
            #expect((push["b"] as? [String: Any])?["p"] as? String == "private")
            try await server.put("/private/x", "1")
            try await client.expectNoPushesBeforeFence(at: "/public/fence")
            await client.close()
        }
    }

    @Test func gracefulShutdownClosesWithGoingAway() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-ws-drain")
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
        // Shutdown must close the connection itself, not wait out the drain timeout: with an
        // hour's timeout, a shutdown that waited would miss the bound below.
        configuration.realtime.drainTimeout = .seconds(3600)
        let running = try await HearthServer.start(configuration: configuration, logger: logger)
        let client = try await RealtimeTestClient.connect(port: running.port)
        try await client.authenticateAsAdmin()
        _ = try await client.response(to: client.request("o", #"{"p":"/gone","d":true}"#))
        try await completes(within: .seconds(60)) { await running.shutdown() }
        try await client.waitUntilEnded()
        #expect(client.closeCode == 1001)
        // The connection's onDisconnect ran before the store closed.
        let again = try await HearthServer.start(configuration: configuration, logger: logger)
        let server = TestServer(port: again.port, directory: directory)
        let gone = try await server.get("/gone")
        await again.shutdown()
        #expect(gone == "true")
    }
}
