import Foundation
import HearthTestSupport
import Testing

/// `hearth serve --cluster`: two real nodes over a private PostgreSQL. Every node answers for
/// every namespace (REST, SSE and WebSocket forwarded or relayed to the owner), an acknowledged
/// write survives `kill -9` of the node that owned its namespace, the survivor takes the
/// namespace over within the lease and runs the dead node's connections' onDisconnect writes,
/// and a node stopped past its lease commits nothing when it wakes. The other cluster suites
/// are nested in this one (extensions), so that one cluster test runs at a time: each starts a
/// PostgreSQL database and two or more `hearth` processes beside the rest of the suite.
@Suite("a cluster of nodes over PostgreSQL", .serialized)
struct ClusterProcessTests {
    static let leaseSeconds = 2

    struct Cluster {
        let directory: TemporaryDirectory
        let database: String
        var nodes: [ProcessTestServer]

        /// Starts `count` nodes over a new database, run from a directory that holds
        /// `rules/database.rules.json` when `rules` is given.
        static func start(nodes count: Int, rules: String? = nil) async throws -> Cluster {
            let database = try PrivatePostgres.shared.get().database()
            let directory = try TemporaryDirectory()
            if let rules {
                try FileManager.default.createDirectory(
                    at: directory.appending("rules"),
                    withIntermediateDirectories: true
                )
                try Data(rules.utf8).write(to: directory.appending("rules/database.rules.json"))
            }
            var nodes: [ProcessTestServer] = []
            for index in 0..<count {
                nodes.append(try await startNode(index, directory: directory, database: database))
            }
            return Cluster(directory: directory, database: database, nodes: nodes)
        }

        /// Starts node `index` of the cluster over `database`, its data in `directory/node<index>`,
        /// run from `workingDirectory` (default `directory`), with `extraArguments` after the
        /// cluster's own.
        static func startNode(
            _ index: Int,
            directory: TemporaryDirectory,
            database: String,
            workingDirectory: URL? = nil,
            leaseSeconds: Int = ClusterProcessTests.leaseSeconds,
            extraArguments: [String] = []
        ) async throws
            -> ProcessTestServer
        {
            try await ProcessTestServer.start(
                dataDirectory: directory.appending("node\(index)"),
                workingDirectory: workingDirectory ?? directory.url,
                arguments: [
                    "--jwt-secret", TestServer.jwtSecret, "--cluster", database,
                    "--lease-seconds", "\(leaseSeconds)",
                ] + extraArguments
            )
        }

        func stop() async {
            for node in nodes { await node.kill() }
            directory.remove()
        }

        /// Runs `body` with one node over a new database (`leaseSeconds` long leases), the
        /// database's PostgreSQL and name; kills the node after, whatever `body` throws.
        static func withOneNode(
            leaseSeconds: Int,
            _ body: (ProcessTestServer, PrivatePostgres, String) async throws -> Void
        ) async throws {
            let postgres = try PrivatePostgres.shared.get()
            let database = try postgres.database()
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let node = try await startNode(0, directory: directory, database: database, leaseSeconds: leaseSeconds)
            do {
                try await body(node, postgres, database)
            } catch {
                await node.kill()
                throw error
            }
            await node.kill()
        }

        /// The cluster's view through `node`: node ids by URL, and each namespace's owner id.
        func view(
            through node: ProcessTestServer
        ) async throws -> (nodes: [String: (id: String, alive: Bool)], owners: [String: String]) {
            let answer = try await node.request("GET", "/.well-known/hearth/cluster", admin: true)
            guard answer.status == 200,
                let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
                let nodes = json["nodes"] as? [[String: Any]], let owners = json["owners"] as? [String: String]
            else { throw TestFailure("cluster view: \(answer.status) \(answer.body)") }
            var byURL: [String: (id: String, alive: Bool)] = [:]
            for entry in nodes {
                guard let id = entry["id"] as? String, let url = entry["url"] as? String,
                    let alive = entry["alive"] as? Bool
                else { throw TestFailure("a node entry is malformed: \(entry)") }
                byURL[url] = (id, alive)
            }
            return (byURL, owners)
        }

        /// The index in `nodes` of the node that owns `namespace` now.
        func owner(of namespace: String) async throws -> Int {
            let view = try await view(through: nodes[0])
            guard let id = view.owners[namespace],
                let index = nodes.firstIndex(where: { view.nodes[$0.baseURL]?.id == id })
            else { throw TestFailure("nobody owns '\(namespace)': \(view.owners)") }
            return index
        }
    }

    /// `GET` through `node`, retried while the namespace is between owners (503).
    static func read(
        _ path: String,
        through node: ProcessTestServer,
        within timeout: Duration = .seconds(20)
    ) async throws
        -> String
    {
        var last = "nothing"
        var body: String?
        do {
            try await eventually(timeout: timeout, interval: .milliseconds(100)) {
                guard let answer = try? await node.request("GET", path, admin: true) else { return false }
                last = "\(answer.status) \(answer.body)"
                if answer.status == 200 { body = answer.body }
                return answer.status == 200
            }
        } catch is ConditionTimeout {
            throw TestFailure("GET \(path) answered \(last)")
        }
        return body ?? ""
    }

    @Test func everyNodeServesEveryNamespaceAndAKilledOwnersWritesSurvive() async throws {
        var cluster = try await Cluster.start(nodes: 2)
        defer { Task { [cluster] in await cluster.stop() } }
        // The first request takes the namespace; the other node forwards to it.
        #expect(
            try await cluster.nodes[1].request("PUT", "/rooms/r1.json?ns=chat", body: #"{"n":1}"#, admin: true).status
                == 200
        )
        for index in 2...20 {
            let node = cluster.nodes[index % 2]
            let answer = try await node.request(
                "PATCH",
                "/rooms.json?ns=chat",
                body: #"{"r\#(index)":{"n":\#(index)}}"#,
                admin: true
            )
            #expect(answer.status == 200)
        }
        let expected = try await Self.read("/rooms.json?ns=chat", through: cluster.nodes[0])
        #expect(try await Self.read("/rooms.json?ns=chat", through: cluster.nodes[1]) == expected)
        #expect(expected.contains(#""r20":{"n":20}"#))

        let view = try await cluster.view(through: cluster.nodes[1])
        #expect(view.nodes.count == 2)
        #expect(view.nodes.values.allSatisfy { $0.alive })
        let owner = try await cluster.owner(of: "chat")
        let survivor = cluster.nodes[1 - owner]
        await cluster.nodes[owner].kill()

        // Within the lease (and a heartbeat's margin) the survivor serves every acknowledged write.
        let started = ContinuousClock.now
        #expect(try await Self.read("/rooms.json?ns=chat", through: survivor) == expected)
        #expect(ContinuousClock.now - started < .seconds(Self.leaseSeconds * 4))
        #expect(
            try await survivor.request("PATCH", "/rooms.json?ns=chat", body: #"{"after":true}"#, admin: true).status
                == 200
        )
        let after = try await cluster.view(through: survivor)
        #expect(after.owners["chat"] == after.nodes[survivor.baseURL]?.id)
        #expect(after.nodes.values.filter { $0.alive }.count == 1)

        // The killed node comes back with its old copy: it is told who owns the namespace now and
        // forwards; nothing it held locally replaces the survivor's writes.
        let restarted = try await Cluster.startNode(owner, directory: cluster.directory, database: cluster.database)
        cluster.nodes[owner] = restarted
        let everything = try await Self.read("/rooms.json?ns=chat", through: restarted)
        #expect(everything.contains(#""after":true"#))
        #expect(everything.contains(#""r20":{"n":20}"#))
    }

    @Test func noAcknowledgedWriteIsLostWhenTheOwnerIsKilledUnderLoad() async throws {
        let cluster = try await Cluster.start(nodes: 2)
        defer { Task { await cluster.stop() } }
        #expect(
            try await cluster.nodes[0].request("PUT", "/load/start.json?ns=load", body: "0", admin: true).status == 200
        )
        let owner = try await cluster.owner(of: "load")
        let acknowledged = Locked<[String: Int]>([:])
        let counter = Locked(0)
        let started = ContinuousClock.now
        // Eight writers through both nodes, each one request in flight, until a while after the kill.
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let node = cluster.nodes[writer % 2]
                    var index = 0
                    while ContinuousClock.now - started < .seconds(6) {
                        index += 1
                        let key = "w\(writer)-\(index)"
                        let value = counter.withLock { value -> Int in
                            value += 1
                            return value
                        }
                        let answer = try? await node.request(
                            "PUT",
                            "/load/\(key).json?ns=load",
                            body: "\(value)",
                            admin: true,
                            timeout: .seconds(3)
                        )
                        if answer?.status == 200 { acknowledged.withLock { $0[key] = value } }
                    }
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(1.5))
                await cluster.nodes[owner].kill()
            }
        }
        let survivor = cluster.nodes[1 - owner]
        let body = try await Self.read("/load.json?ns=load", through: survivor)
        let stored = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Int] ?? [:]
        let written = acknowledged.withLock { $0 }
        #expect(written.count >= 8)  // a loaded debug run acknowledges a few dozen
        let lost = written.filter { stored[$0.key] != $0.value }
        #expect(lost.isEmpty, "acknowledged but not stored: \(lost.count) of \(written.count)")
    }

    @Test func anEventStreamThroughAnotherNodeFollowsTheOwnersCommits() async throws {
        let cluster = try await Cluster.start(nodes: 2)
        defer { Task { await cluster.stop() } }
        #expect(try await cluster.nodes[0].request("PUT", "/feed/a.json?ns=feed", body: "1", admin: true).status == 200)
        let owner = try await cluster.owner(of: "feed")
        let entry = cluster.nodes[1 - owner]
        let stream = try await SSETestStream.open(
            port: entry.port,
            path: "/feed.json?ns=feed",
            headers: [("Accept", "text/event-stream"), ("Authorization", "Bearer test-admin-secret")]
        )
        defer { stream.cancel() }
        #expect(stream.status == 200)
        #expect(stream.contentType?.hasPrefix("text/event-stream") == true)
        let first = try await stream.nextData()
        #expect(first.name == "put")
        #expect(first.data == #"{"path":"/","data":{"a":1}}"#)
        // A write through the owner reaches the stream forwarded by the other node.
        #expect(
            try await cluster.nodes[owner].request("PUT", "/feed/b.json?ns=feed", body: "2", admin: true).status == 200
        )
        let next = try await stream.nextData()
        #expect(next.name == "put")
        #expect(next.data == #"{"path":"/b","data":2}"#)
    }

    @Test func aWebSocketThroughAnotherNodeIsRelayedAndItsOnDisconnectRunsAfterTheOwnerDies() async throws {
        let cluster = try await Cluster.start(nodes: 2)
        defer { Task { await cluster.stop() } }
        #expect(
            try await cluster.nodes[0].request("PUT", "/state.json?ns=live", body: #"{"on":true}"#, admin: true).status
                == 200
        )
        let owner = try await cluster.owner(of: "live")
        let entry = cluster.nodes[1 - owner]

        // A client of the other node: its hello names that node; reads, listens and writes
        // reach the owner.
        let client = try await RealtimeTestClient.connect(port: entry.port, ns: "live", readHello: false)
        let hello = try await client.nextJSON()
        let host = ((hello["d"] as? [String: Any])?["d"] as? [String: Any])?["h"] as? String
        #expect(host == "127.0.0.1:\(entry.port)")
        let auth = client.request("auth", #"{"cred":"test-admin-secret"}"#)
        #expect(try await client.response(to: auth).body["s"] as? String == "ok")
        let listen = client.request("q", #"{"p":"/state","h":""}"#)
        let listened = try await client.response(to: listen)
        #expect(listened.body["s"] as? String == "ok")
        #expect(listened.pushes.contains { ($0["b"] as? [String: Any])?["d"] as? [String: Bool] == ["on": true] })
        let put = client.request("p", #"{"p":"/state/by","d":"ws"}"#)
        #expect(try await client.response(to: put).body["s"] as? String == "ok")
        #expect(try await Self.read("/state/by.json?ns=live", through: cluster.nodes[owner]) == #""ws""#)
        let registered = client.request("o", #"{"p":"/state/on","d":false}"#)
        #expect(try await client.response(to: registered).body["s"] as? String == "ok")

        // The owner dies: the relayed connection ends, and the survivor that takes the namespace
        // over runs the onDisconnect write the dead node's connection left.
        await cluster.nodes[owner].kill()
        try await client.waitUntilEnded(timeout: .seconds(10))
        try await eventually(timeout: .seconds(20), interval: .milliseconds(100)) {
            let answer = try? await entry.request("GET", "/state/on.json?ns=live", admin: true)
            return answer?.status == 200 && answer?.body == "false"
        }
        #expect(try await Self.read("/state/by.json?ns=live", through: entry) == #""ws""#)
    }

    @Test func aNodeStoppedPastItsLeaseCommitsNothingWhenItWakes() async throws {
        let cluster = try await Cluster.start(nodes: 2)
        defer { Task { await cluster.stop() } }
        #expect(try await cluster.nodes[0].request("PUT", "/log/a.json?ns=fence", body: "1", admin: true).status == 200)
        let owner = try await cluster.owner(of: "fence")
        let zombie = cluster.nodes[owner]
        let survivor = cluster.nodes[1 - owner]
        zombie.child.send(SIGSTOP)
        // The survivor takes the namespace over once the zombie's lease ran out, and writes.
        try await eventually(timeout: .seconds(20), interval: .milliseconds(100)) {
            // A request forwarded to the stopped node waits for it: each try gives up soon.
            let answer = try? await survivor.request(
                "PUT",
                "/log/b.json?ns=fence",
                body: "2",
                admin: true,
                timeout: .seconds(1)
            )
            return answer?.status == 200
        }
        zombie.child.send(SIGCONT)
        // Whatever the woken node answers, a write it acknowledges is in the namespace's one
        // history (forwarded to the new owner), and one it could not place is refused.
        let woken = try await zombie.request("PUT", "/log/c.json?ns=fence", body: "3", admin: true)
        #expect(woken.status == 200 || woken.status == 503)
        let log = try await Self.read("/log.json?ns=fence", through: survivor)
        #expect(log == (woken.status == 200 ? #"{"a":1,"b":2,"c":3}"# : #"{"a":1,"b":2}"#))
        #expect(try await Self.read("/log.json?ns=fence", through: zombie) == log)
    }

    @Test func theClusterViewNeedsTheAdminAndStrangersLeaveNothingBehind() async throws {
        let cluster = try await Cluster.start(nodes: 1)
        defer { Task { await cluster.stop() } }
        #expect(try await cluster.nodes[0].request("GET", "/.well-known/hearth/cluster").status == 401)
        // Made-up namespaces without rules refuse all but the admin on every node: no lease is
        // taken for them (a stranger cannot fill the cluster's tables).
        for index in 0..<20 {
            #expect(try await cluster.nodes[0].request("GET", "/x.json?ns=made-up-\(index)").status == 401)
        }
        // A WebSocket for one is served: its client says who it is only after it connects (the
        // SDKs' admin and emulator tokens too). A stranger on it is refused by the default
        // rules; the admin writes.
        let port = cluster.nodes[0].port
        let stranger = try await RealtimeTestClient.connect(port: port, ns: "made-up-ws")
        let refused = try await stranger.response(to: stranger.request("p", #"{"p":"/x","d":1}"#))
        #expect(refused.body["s"] as? String == "permission_denied", "\(refused.body)")
        let admin = try await RealtimeTestClient.connect(port: port, ns: "made-up-admin")
        let id = admin.request("auth", #"{"cred":"test-admin-secret"}"#)
        #expect(try await admin.response(to: id).body["s"] as? String == "ok")
        let put = try await admin.response(to: admin.request("p", #"{"p":"/x","d":1}"#))
        #expect(put.body["s"] as? String == "ok", "\(put.body)")
        #expect(try await cluster.view(through: cluster.nodes[0]).owners["made-up-ws"] != nil)
        await stranger.close()
        await admin.close()
        // Once idle for a lease, the namespace nobody wrote is gone from the cluster; the written
        // one stays.
        try await eventually(timeout: .seconds(Self.leaseSeconds * 8), interval: .milliseconds(200)) {
            try await cluster.view(through: cluster.nodes[0]).owners["made-up-ws"] == nil
        }
        let view = try await cluster.view(through: cluster.nodes[0])
        #expect(view.owners["made-up-admin"] != nil)
        let rows = try PrivatePostgres.shared.get().query(
            "SELECT ns FROM hearth_namespaces WHERE ns LIKE 'made-up%' ORDER BY ns",
            in: cluster.database
        )
        #expect(rows == ["made-up-admin"])
    }
}

extension ClusterProcessTests {
    /// A namespace's owner snapshots it into PostgreSQL once its changelog grew past
    /// `--snapshot-entries`, and drops the changelog up to there; a node with no copy installs
    /// the snapshot and replays the rest when it takes the namespace over.
    @Suite("a cluster's snapshots")
    struct ClusterSnapshotTests {
        /// Nodes of one cluster over a new database, each with `--snapshot-entries`.
        struct Nodes {
            let postgres: PrivatePostgres
            let database: String
            let directory: TemporaryDirectory
            let snapshotEntries: Int

            init(snapshotEntries: Int) throws {
                postgres = try PrivatePostgres.shared.get()
                database = try postgres.database()
                directory = try TemporaryDirectory()
                self.snapshotEntries = snapshotEntries
            }

            func start(_ index: Int) async throws -> ProcessTestServer {
                try await Cluster.startNode(
                    index,
                    directory: directory,
                    database: database,
                    extraArguments: ["--snapshot-entries", "\(snapshotEntries)"]
                )
            }
        }

        @Test func aNewNodeTakesOverFromTheSnapshotAndTheChangelogShrinks() async throws {
            let nodes = try Nodes(snapshotEntries: 20)
            defer { nodes.directory.remove() }
            let (postgres, database) = (nodes.postgres, nodes.database)
            func node(_ index: Int) async throws -> ProcessTestServer { try await nodes.start(index) }
            let first = try await node(0)
            defer { Task { await first.kill() } }
            for index in 0..<120 {
                let answer = try await first.request(
                    "PUT",
                    "/items/i\(index).json?ns=snap",
                    body: "\(index)",
                    admin: true
                )
                #expect(answer.status == 200)
            }
            // A snapshot within a few beats; the changelog up to it is gone.
            var head: [String] = []
            try await eventually(timeout: .seconds(20), interval: .milliseconds(200)) {
                head = try postgres.query("SELECT lsn FROM hearth_snapshot_heads WHERE ns = 'snap'", in: database)
                return (Int(head.first ?? "") ?? 0) >= 100
            }
            let snapshotAt = try #require(Int(head.first ?? ""))
            let kept = try postgres.query(
                "SELECT count(*), min(lsn) FROM hearth_changelog WHERE ns = 'snap'",
                in: database
            )
            let parts = (kept.first ?? "").split(separator: "|").map(String.init)
            #expect(Int(parts.first ?? "") ?? 999 < 120 - snapshotAt + 1, "\(kept)")
            #expect(parts.count < 2 || parts[1].isEmpty || (Int(parts[1]) ?? 0) > snapshotAt, "\(kept)")
            // Written after the snapshot: replayed from the changelog.
            #expect(try await first.request("PUT", "/after.json?ns=snap", body: "true", admin: true).status == 200)
            let expected = try await ClusterProcessTests.read("/.json?ns=snap", through: first)

            let second = try await node(1)
            defer { Task { await second.kill() } }
            await first.kill()
            #expect(try await ClusterProcessTests.read("/.json?ns=snap", through: second) == expected)
            #expect(try await second.request("PUT", "/later.json?ns=snap", body: "1", admin: true).status == 200)
        }

        @Test func theSharedLogsStayBoundedAndANewNodeStartsFromTheirSnapshot() async throws {
            let nodes = try Nodes(snapshotEntries: 10)
            defer { nodes.directory.remove() }
            let (postgres, database) = (nodes.postgres, nodes.database)
            func node(_ index: Int) async throws -> ProcessTestServer { try await nodes.start(index) }
            func count(_ sql: String) throws -> Int { Int(try postgres.query(sql, in: database).first ?? "") ?? -1 }
            let first = try await node(0)
            defer { Task { await first.kill() } }
            // 35 accounts (a batch each) and 25 rules versions through the first node.
            for index in 0..<35 {
                _ = try await first.signUp("user\(index)@example.com", password: "password-\(index)")
            }
            for index in 0..<25 {
                let rules = #"{"rules":{".read":"auth != null",".write":false,"v\#(index)":{".read":true}}}"#
                let put = try await first.request("PUT", "/.settings/rules.json?ns=club", body: rules, admin: true)
                #expect(put.status == 200, "\(put.body)")
            }
            // The accounts' log keeps its entries from the previous snapshot on; the rules'
            // the newest 20 versions.
            try await eventually(timeout: .seconds(10), interval: .milliseconds(100)) {
                try count("SELECT position FROM hearth_shared_snapshot_heads WHERE stream = 'accounts'") >= 30
            }
            let accounts = try count("SELECT count(*) FROM hearth_shared_log WHERE stream = 'accounts'")
            #expect(accounts > 0 && accounts <= 2 * 10 + 5, "\(accounts) entries kept")
            #expect(
                try count("SELECT count(DISTINCT position) FROM hearth_shared_snapshots WHERE stream = 'accounts'") == 1
            )
            #expect(try count("SELECT count(*) FROM hearth_shared_log WHERE stream = 'rules/club'") == 20)
            #expect(try count("SELECT min(position) FROM hearth_shared_log WHERE stream = 'rules/club'") == 6)

            // A node with no copy starts from the snapshot: the first accounts sign in through
            // it, and the newest rules are in force there.
            let second = try await node(1)
            defer { Task { await second.kill() } }
            let signIn = try await second.request(
                "POST",
                "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                body: #"{"email":"user0@example.com","password":"password-0","returnSecureToken":true}"#,
                timeout: ProcessTestServer.passwordHashingTimeout
            )
            #expect(signIn.status == 200, "\(signIn.body)")
            let rules = try await second.request("GET", "/.settings/rules.json?ns=club", admin: true)
            #expect(rules.body.contains("v24"), "\(rules.body)")
        }
    }
}

extension ClusterProcessTests {
    /// A PostgreSQL that falls silent (its connections stay open and answer nothing: a killed
    /// primary behind HAProxy, a cut network) stops a node serving within the lease, and once it
    /// answers new connections again the node drops the silent ones and serves again.
    @Suite("a node over a silent PostgreSQL")
    struct ClusterSilentPostgresTests {
        /// One node whose PostgreSQL is reached through a `FreezingProxy`, its first write (`/a`
        /// = 1 in `namespace`) done.
        struct ProxiedNode: Sendable {
            let postgres: PrivatePostgres
            let database: String
            let proxy: FreezingProxy
            let directory: TemporaryDirectory
            let node: ProcessTestServer

            static func start(writing namespace: String) async throws -> ProxiedNode {
                let postgres = try PrivatePostgres.shared.get()
                let database = try postgres.database()
                let proxy = try FreezingProxy(to: postgres.port)
                let directory = try TemporaryDirectory()
                let node: ProcessTestServer
                do {
                    node = try await Cluster.startNode(
                        0,
                        directory: directory,
                        database: database.replacingOccurrences(of: ":\(postgres.port)/", with: ":\(proxy.port)/")
                    )
                } catch {
                    proxy.stop()
                    directory.remove()
                    throw error
                }
                let proxied = ProxiedNode(
                    postgres: postgres,
                    database: database,
                    proxy: proxy,
                    directory: directory,
                    node: node
                )
                let first = try await node.request("PUT", "/a.json?ns=\(namespace)", body: "1", admin: true)
                guard first.status == 200 else {
                    await proxied.stop()
                    throw TestFailure("the first write answered \(first.status): \(first.body)")
                }
                return proxied
            }

            func stop() async {
                await node.kill()
                proxy.stop()
                directory.remove()
            }
        }

        @Test func aNodeWhosePostgreSQLFallsSilentServesAgainOnNewConnections() async throws {
            let proxied = try await ProxiedNode.start(writing: "silent")
            defer { Task { await proxied.stop() } }
            let (node, proxy) = (proxied.node, proxied.proxy)

            proxy.freezeExisting()
            // No answer from PostgreSQL: the node stops serving once its lease may have run out.
            try await eventually(timeout: .seconds(15), interval: .milliseconds(200)) {
                try await node.request("GET", "/a.json?ns=silent", admin: true, timeout: .seconds(10)).status == 503
            }
            // PostgreSQL answers new connections: the node gives the silent ones up and serves again.
            try await eventually(timeout: .seconds(30), interval: .milliseconds(200)) {
                try await node.request("PUT", "/b.json?ns=silent", body: "2", admin: true, timeout: .seconds(10)).status
                    == 200
            }
            #expect(try await node.request("GET", "/.json?ns=silent", admin: true).body == #"{"a":1,"b":2}"#)
        }

        /// A commit whose answer is lost (the statement reached PostgreSQL, nothing came back)
        /// is settled before its writes are answered: acknowledged when it committed, refused
        /// when it did not, and PostgreSQL's changelog agrees with every answer.
        @Test func aCommitWhoseAnswerIsLostIsAcknowledgedOnlyWhenItCommitted() async throws {
            let proxied = try await ProxiedNode.start(writing: "lost")
            defer { Task { await proxied.stop() } }
            let (node, proxy) = (proxied.node, proxied.proxy)

            // The statement reaches PostgreSQL and commits; its answer never comes back.
            proxy.freezeAnswersOfExisting()
            let committed = try await node.request(
                "PUT",
                "/b.json?ns=lost",
                body: "2",
                admin: true,
                timeout: .seconds(60)
            )
            #expect(committed.status == 200, "\(committed.body)")

            // Served again over new connections; then nothing gets through either way.
            try await eventually(timeout: .seconds(30), interval: .milliseconds(200)) {
                try await node.request("PUT", "/c.json?ns=lost", body: "3", admin: true, timeout: .seconds(10)).status
                    == 200
            }
            proxy.freezeExisting()
            let lost = try await node.request("PUT", "/d.json?ns=lost", body: "4", admin: true, timeout: .seconds(60))
            #expect(lost.status == 503, "\(lost.body)")

            let everything = try await ClusterProcessTests.read("/.json?ns=lost", through: node, within: .seconds(30))
            #expect(everything == #"{"a":1,"b":2,"c":3}"#)
            let entries = try proxied.postgres.query(
                "SELECT count(*) FROM hearth_changelog WHERE ns = 'lost'",
                in: proxied.database
            )
            #expect(entries == ["3"], "one changelog entry per acknowledged write")
        }
    }
}

extension ClusterProcessTests {
    /// A relayed WebSocket ends when its client ends it, whatever way it does (as on one server,
    /// `ConnectionEndTests`): the owner runs its onDisconnect writes within a second.
    @Suite("a relayed WebSocket's end")
    struct ClusterRelayEndTests {
        enum Ending: String, CaseIterable, Sendable {
            case halfClose = "shutdown(SHUT_WR)"
            case close = "close() after reading"
            case reset = "close() with SO_LINGER 0 (RST)"
        }

        @Test(arguments: Ending.allCases)
        func aRelayedWebSocketEndedWithoutACloseFrameRunsItsOnDisconnectOnTheOwnerAtOnce(_ ending: Ending) async throws
        {
            let cluster = try await ClusterProcessTests.Cluster.start(nodes: 2)
            defer { Task { await cluster.stop() } }
            let (owner, entry) = (cluster.nodes[0], cluster.nodes[1])
            #expect(
                try await owner.request("PUT", "/status/ada.json?ns=relay", body: #""online""#, admin: true).status
                    == 200
            )
            let socket = try await onThread {
                let socket = try RawWebSocket(port: entry.port, query: "v=5&ns=relay")
                _ = try socket.readText()  // the owner's hello, through the relay
                try socket.sendText(#"{"t":"d","d":{"r":1,"a":"auth","b":{"cred":"test-admin-secret"}}}"#)
                _ = try socket.awaitResponse(to: 1)
                try socket.sendText(#"{"t":"d","d":{"r":2,"a":"o","b":{"p":"/status/ada","d":"offline"}}}"#)
                let registered = try socket.awaitResponse(to: 2)
                guard registered.contains(#""s":"ok""#) else {
                    throw TestFailure("onDisconnect refused: \(registered)")
                }
                return socket
            }
            switch ending {
            case .halfClose: socket.shutdownWrite()
            case .close: socket.closeWithoutCloseFrame()
            case .reset: socket.abort()
            }
            let status = try await eventually(timeout: .seconds(1), interval: .milliseconds(10)) {
                try await owner.request("GET", "/status/ada.json?ns=relay", admin: true).body
            } until: {
                $0 == #""offline""#
            }
            #expect(status == #""offline""#, "\(ending.rawValue)")
            if ending == .halfClose { socket.abort() }
        }
    }
}
