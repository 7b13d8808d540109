import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// REST requests a node relays to their namespace's owner at the channel level
/// (`ClusterRESTRelay`), once it knows the owner: answered as the owner answers, in their order
/// on a connection shared with the node's own requests, counted against the client's address
/// at the entry, refused clearly when the owner is gone or refuses the body.
extension ClusterScenarioTests {
    static let admin = "auth=\(TestServer.adminSecret)"

    /// How many requests `node` relayed (`hearth_cluster_relayed_requests_total`).
    static func relayed(by node: TestServer) async throws -> Double {
        let scrape = try await node.send("GET", "/metrics?\(admin)")
        return PrometheusText.sample("hearth_cluster_relayed_requests_total", in: scrape.body) ?? 0
    }

    /// `TestServer.withCluster` with node `index` (0 owns `default`, 1 is the entry) limiting
    /// loopback clients as `limit` sets (loopback is not limited by default).
    static func withCluster(
        limitingLoopbackOn index: Int,
        _ limit: (inout ConnectionConfiguration) -> Void,
        run body: (TestServer) async throws -> Void
    ) async throws {
        try await TestServer.withCluster(
            prepareNode: { node, configuration in
                guard node == index else { return }
                limit(&configuration.connections)
                configuration.connections.limitsLoopback = true
            },
            run: body
        )
    }

    /// The entry learns where `default` is served (the router's forward asks PostgreSQL).
    static func learnOwner(through entry: TestServer) async throws {
        let learned = try await entry.send("GET", "/.json?shallow=true&\(admin)")
        #expect(learned.status == 200, "\(learned.body)")
    }

    /// Requests pipelined on one connection, relayed ones between the node's own, get their
    /// answers in the order they were sent, and the relayed ones read and write the owner's data.
    @Test func pipelinedRequestsThroughANonOwnerAreAnsweredInTheirOrder() async throws {
        try await TestServer.withCluster { entry in
            try await Self.learnOwner(through: entry)
            let before = try await Self.relayed(by: entry)
            let connection = try RawConnection(port: entry.port)
            defer { connection.closeSocket() }
            // Three relayed ones back to back (each waits for the one before), then two of the
            // node's own, then one the router forwards (it owes answers when it is read) or
            // relays (it does not).
            let requests = [
                ("PUT", "/relay/a.json?\(Self.admin)", "1"),
                ("GET", "/relay/a.json?\(Self.admin)", ""),
                ("PATCH", "/relay.json?\(Self.admin)", #"{"b":{"c":true}}"#),
                ("GET", "/.well-known/hearth/cluster?\(Self.admin)", ""),
                ("GET", "/.well-known/hearth/health", ""),
                ("GET", "/relay.json?\(Self.admin)", ""),
            ]
            let text = requests.map { method, target, body in
                "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            }
            #expect(connection.send(text.joined()))
            var answers: [RawConnection.Response] = []
            for _ in requests {
                guard let answer = try connection.readResponse() else { break }
                answers.append(answer)
            }
            try #require(answers.count == requests.count, "\(answers)")
            #expect(answers.map(\.status) == [200, 200, 200, 200, 200, 200], "\(answers)")
            #expect(answers[0].body == "1")
            #expect(answers[1].body == "1")
            #expect(answers[2].body == #"{"b":{"c":true}}"#)
            #expect(answers[3].body.contains(#""owners""#), "\(answers[3].body)")
            #expect(answers[5].body == #"{"a":1,"b":{"c":true}}"#)
            let relayedNow = try await Self.relayed(by: entry)
            #expect((3...4).contains(relayedNow - before), "\(before) → \(relayedNow)")
            // The connection is kept and serves on.
            #expect(connection.send("GET /relay/b/c.json?\(Self.admin) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            #expect(try connection.readResponse()?.body == "true")
            // A HEAD's answer (405, as a single node's: REST has no HEAD) has a length and no
            // body: the owner's connection it took reads the next answers whole.
            let head = try await entry.send("HEAD", "/relay.json?\(Self.admin)")
            #expect(head.status == 405, "\(head.status) \(head.body) \(head.headers)")
            #expect(head.body.isEmpty)
            for _ in 0..<3 {
                #expect(try await entry.send("GET", "/relay/a.json?\(Self.admin)").body == "1")
            }
        }
    }

    /// A body sent in chunks (no `Content-Length`) is relayed in chunks and stored whole.
    @Test func aChunkedBodyThroughANonOwnerIsRelayedWhole() async throws {
        try await TestServer.withCluster { entry in
            try await Self.learnOwner(through: entry)
            let before = try await Self.relayed(by: entry)
            let connection = try RawConnection(port: entry.port)
            defer { connection.closeSocket() }
            let chunks = [#"{"a":"#, #""xyz","#, #""b":[1,2,3]}"#]
            let body = chunks.map { String($0.utf8.count, radix: 16) + "\r\n" + $0 + "\r\n" }.joined() + "0\r\n\r\n"
            #expect(
                connection.send(
                    "PUT /chunked.json?\(Self.admin) HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + body
                )
            )
            let answer = try #require(try connection.readResponse())
            #expect(answer.status == 200, "\(answer)")
            #expect(try await entry.send("GET", "/chunked.json?\(Self.admin)").body == #"{"a":"xyz","b":[1,2,3]}"#)
            #expect(try await Self.relayed(by: entry) - before == 2)
        }
    }

    /// A callable's call through a non-owner is relayed too, answered by the owner's callable
    /// (its writes in the owner's data), and counted under `functions`.
    @Test func aCallablesCallThroughANonOwnerIsRelayed() async throws {
        try await TestServer.withCluster(prepare: { configuration, _ in
            try CallableFixtures.register(&configuration)
        }) { entry in
            try await Self.learnOwner(through: entry)
            let before = try await Self.relayed(by: entry)
            let client = CallableClient(server: entry)
            let echo = try await client.call("echo", data: #"{"n":1}"#)
            #expect(echo.status == 200, "\(echo.body)")
            #expect(echo.body.contains(#""caller":"alice""#), "\(echo.body)")
            let pair = try await client.call("pair", data: #"{"id":"p","value":7}"#)
            #expect(pair.status == 200, "\(pair.body)")
            #expect(try await entry.send("GET", "/pairs/right/p.json?\(Self.admin)").body == "7")
            #expect(try await Self.relayed(by: entry) - before == 3)
            let scrape = try await entry.send("GET", "/metrics?\(Self.admin)").body
            #expect(scrape.contains(#"route="functions""#), "\(scrape)")
        }
    }

    /// The owner refuses a body larger than it takes before reading it: the client hears the
    /// owner's 413 and the entry closes its connection, as the owner does with its own clients.
    @Test func aBodyTheOwnerRefusesEndsTheRelayedConnection() async throws {
        try await TestServer.withCluster(prepareNode: { index, configuration in
            if index == 0 { configuration.maxRequestBodyBytes = 1 << 10 }
        }) { entry in
            try await Self.learnOwner(through: entry)
            let connection = try RawConnection(port: entry.port)
            defer { connection.closeSocket() }
            let length = 4 << 20
            #expect(
                connection.send(
                    "PUT /big.json?\(Self.admin) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n\r\n\"x"
                )
            )
            // It goes on sending, as a client that does not wait for an early answer does: the
            // answer is read all the same (the entry drops the rest instead of resetting).
            let sent = connection.sendBody(count: 512 << 10, piece: 16 << 10)
            #expect(sent < length)
            let answer = try #require(try connection.readResponse())
            #expect(answer.status == 413, "\(answer)")
            #expect(answer.headers["connection"] == "close", "\(answer)")
            try connection.waitForClose()
            #expect(try await entry.send("GET", "/big.json?\(Self.admin)").body == "null")
        }
    }

    /// Relayed requests count against the client's address at the entry, as the node's own do.
    @Test func relayedRequestsCountAgainstTheClientsAddress() async throws {
        try await Self.withCluster(limitingLoopbackOn: 1, { $0.maxRequestRatePerAddress = 5 }) { entry in
            var statuses: [Int] = []
            for _ in 0..<30 {
                statuses.append(try await entry.send("GET", "/.json?shallow=true&\(Self.admin)").status)
            }
            #expect(statuses.contains(429), "\(statuses)")
            #expect(Set(statuses).isSubset(of: [200, 429]), "\(statuses)")
            #expect(try await Self.relayed(by: entry) > 0)
        }
    }

    /// The connections a node relays requests on leave its share of the owner's per-address
    /// cap once a request shows its stamp: with the owner limiting loopback to two connections
    /// an address, four requests relayed at once (each body half sent, so each holds its own
    /// connection to the owner) are all answered.
    @Test func relayedRequestsConnectionsDoNotCountAgainstTheRelayingNodesAddress() async throws {
        try await Self.withCluster(limitingLoopbackOn: 0, { $0.maxConnectionsPerAddress = 2 }) { entry in
            try await Self.learnOwner(through: entry)
            var clients: [RawConnection] = []
            defer { for client in clients { client.closeSocket() } }
            for index in 0..<4 {
                let client = try RawConnection(port: entry.port)
                clients.append(client)
                #expect(
                    client.send(
                        "PUT /held/\(index).json?\(Self.admin) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n\r\n10"
                    )
                )
                try await Task.sleep(for: .milliseconds(200))  // its head reaches the owner
            }
            for (index, client) in clients.enumerated() {
                #expect(client.send("0\(index)"))
                let answer = try client.readResponse()
                #expect(
                    answer?.status == 200 && answer?.body == "100\(index)",
                    "client \(index): \(String(describing: answer))"
                )
            }
        }
    }

    /// How many plain REST writes `node` answered on their connection's loop
    /// (`hearth_rest_direct_writes_total`).
    static func directWrites(by node: TestServer) async throws -> Double {
        let scrape = try await node.send("GET", "/metrics?\(admin)")
        return PrometheusText.sample("hearth_rest_direct_writes_total", in: scrape.body) ?? 0
    }

    /// Plain REST writes at the owner, its own clients' and those another node relays, are
    /// written on their connection's loop as on a single node (`DirectRESTWrites`); the relayed
    /// ones count against their client's address at the entry only. A node writes none of a
    /// namespace it does not serve: the entry relays them.
    @Test func plainWritesAtTheOwnerTakeTheDirectPath() async throws {
        try await Self.withCluster(limitingLoopbackOn: 0, { $0.maxRequestRatePerAddress = 1 }) { entry in
            try await Self.learnOwner(through: entry)
            let owner = TestServer(port: try await Self.ownerPort(through: entry), directory: entry.directory)
            let atOwnerBefore = try await Self.directWrites(by: owner)
            // Ten relayed writes: the owner limits loopback clients to one a second, so they pass
            // only because the entry counted them.
            for index in 0..<10 {
                let relayed = try await entry.send("PUT", "/direct/r\(index).json?\(Self.admin)", text: "\(index)")
                #expect(relayed.status == 200 && relayed.body == "\(index)", "\(relayed.status) \(relayed.body)")
            }
            let own = try await owner.send("PUT", "/direct/own.json?\(Self.admin)", text: #"{"x":1}"#)
            #expect(own.status == 200 && own.body == #"{"x":1}"#, "\(own.status) \(own.body)")
            #expect(try await Self.directWrites(by: owner) - atOwnerBefore == 11)
            #expect(try await Self.directWrites(by: entry) == 0)
            let data = try await entry.send("GET", "/direct.json?\(Self.admin)")
            #expect(data.body.contains(#""own":{"x":1}"#) && data.body.contains(#""r9":9"#), "\(data.body)")
        }
    }

    /// The port of the node serving `default`, as the cluster view names it.
    static func ownerPort(through entry: TestServer) async throws -> Int {
        let view = try await entry.send("GET", "/.well-known/hearth/cluster?\(admin)").body
        let object = try #require(try JSONSerialization.jsonObject(with: Data(view.utf8)) as? [String: Any])
        let owner = try #require((object["owners"] as? [String: String])?["default"], "\(view)")
        let nodes = try #require(object["nodes"] as? [[String: Any]], "\(view)")
        let node = nodes.first { ($0["id"] as? String) == owner || ($0["url"] as? String) == owner }
        let url = try #require(node?["url"] as? String, "\(view)")
        return try #require(URLComponents(string: url)?.port, "\(url)")
    }

    /// An owner gone from under a known route: the relayed request gets 503 with `Retry-After`,
    /// and the entry asks PostgreSQL again next time (it takes the namespace over once the
    /// owner's lease has run out).
    @Test func anOwnerGoneAnswers503AndTheNextRequestsFindTheNamespace() async throws {
        try await TestServer.withClusterAndOwner { entry, owner in
            try await Self.learnOwner(through: entry)
            try await entry.put("/kept", "1")
            await owner.shutdown()
            let before = try await Self.relayed(by: entry)
            let gone = try await entry.send("GET", "/kept.json?\(Self.admin)")
            #expect(try await Self.relayed(by: entry) == before + 1)
            #expect(gone.status == 503, "\(gone.status) \(gone.body)")
            #expect(gone.headers.first(name: "retry-after") == "1")
            #expect(gone.body.contains("cannot be served now"), "\(gone.body)")
            let served = try await eventually(
                timeout: .seconds(40),
                interval: .milliseconds(500),
                { try await entry.send("GET", "/kept.json?\(Self.admin)") },
                until: { $0.status == 200 }
            )
            #expect(served.status == 200 && served.body == "1", "\(served.status) \(served.body)")
        }
    }
}
