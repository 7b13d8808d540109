import Foundation
import HearthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ClusterProcessTests {
    /// Issue 39, test 5: partitions between nodes and PostgreSQL, made with network namespaces
    /// the test creates (`NetworkLab`: every node in a namespace of its own, PostgreSQL reached
    /// over a bridge, a cut drops the packets both ways). Whatever is cut, at most one node
    /// serves a namespace at any moment (so at most one per epoch), a read never misses a write
    /// acknowledged before it was sent, a node cut off from PostgreSQL stops serving within its
    /// lease, and no acknowledged write is lost.
    @Suite(
        "a cluster under network partitions",
        .enabled(if: NetworkLab.isAvailable, "network namespaces need root and iproute2 (`ip`)")
    )
    struct ClusterPartitionTests {
        static let namespace = "part"
        static let lease = Duration.seconds(ClusterProcessTests.leaseSeconds)

        /// When the test cut the network and when it healed it.
        typealias Marks = Locked<(cut: ContinuousClock.Instant, healed: ContinuousClock.Instant)>

        /// Nodes in namespaces of their own over a PostgreSQL of the test's own.
        final class PartitionedCluster: Sendable {
            let lab: NetworkLab
            let postgres: PrivatePostgres
            let database: String
            let directory: TemporaryDirectory
            let nodes: [ProcessTestServer]

            init(nodes count: Int) async throws {
                lab = try NetworkLab(nodes: count)
                postgres = try PrivatePostgres(
                    extraAddresses: [lab.postgresAddress],
                    trustedNetworks: [lab.nodeNetwork]
                )
                database = try postgres.database(host: lab.postgresAddress)
                directory = try TemporaryDirectory()
                var nodes: [ProcessTestServer] = []
                for index in 0..<count {
                    nodes.append(
                        try await ProcessTestServer.start(
                            dataDirectory: directory.appending("node\(index)"),
                            workingDirectory: directory.url,
                            arguments: [
                                "--jwt-secret", TestServer.jwtSecret, "--cluster", database,
                                "--lease-seconds", "\(ClusterProcessTests.leaseSeconds)",
                            ],
                            host: lab.address(index),
                            launcher: lab.launcher(index)
                        )
                    )
                }
                self.nodes = nodes
            }

            func stop() async {
                for node in nodes { await node.kill() }
                postgres.stop()
                lab.remove()
                directory.remove()
            }

            /// Writes `/x` = 0 through node 0 (whichever node takes the namespace); the index of
            /// the node that serves it then.
            func firstWrite() async throws -> Int {
                let answer = try await nodes[0].request(
                    "PUT",
                    "/x.json?ns=\(ClusterPartitionTests.namespace)",
                    body: "0",
                    admin: true
                )
                guard answer.status == 200 else {
                    throw TestFailure("the first write answered \(answer.status): \(answer.body)")
                }
                return try await server(of: ClusterPartitionTests.namespace)
            }

            /// The index of the node serving the namespace now, by the nodes' own word.
            func server(of namespace: String) async throws -> Int {
                var said: [String] = []
                for (index, node) in nodes.enumerated() {
                    let sample = await ServingSample.take(from: node, index: index)
                    if sample.serving[namespace] != nil { return index }
                    said.append(sample.answer + "; stderr: " + String(node.child.stderr().suffix(1500)))
                }
                throw TestFailure("no node serves '\(namespace)': \(said)")
            }

            /// The namespace's changelog: (position, epoch) in position order.
            func changelog(of namespace: String) throws -> [(lsn: Int, epoch: Int)] {
                try postgres.query(
                    "SELECT lsn, epoch FROM hearth_changelog WHERE ns = '\(namespace)' ORDER BY lsn",
                    in: database
                ).map { row in
                    let parts = row.split(separator: "|")
                    return (Int(parts[0]) ?? -1, Int(parts[1]) ?? -1)
                }
            }
        }

        /// What one node said it serves (`GET /.well-known/hearth/cluster`, its `this` part,
        /// answered whether or not PostgreSQL is), between `sent` and `received`.
        struct ServingSample: Sendable {
            var node: Int
            var sent: ContinuousClock.Instant
            var received: ContinuousClock.Instant
            var serving: [String: Int]
            /// What the node answered, for a failure's message.
            var answer: String

            static func take(from server: ProcessTestServer, index: Int) async -> ServingSample {
                let sent = ContinuousClock.now
                var serving: [String: Int] = [:]
                let answer = try? await server.request(
                    "GET",
                    "/.well-known/hearth/cluster",
                    admin: true,
                    timeout: .seconds(10)
                )
                let text = answer.map { "\($0.status) \($0.body)" } ?? "no answer"
                if let answer,
                    let json = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
                    let this = json["this"] as? [String: Any],
                    let map = this["serving"] as? [String: NSNumber]
                {
                    serving = map.mapValues(\.intValue)
                }
                return ServingSample(node: index, sent: sent, received: .now, serving: serving, answer: text)
            }
        }

        /// A write of `value`: when it was sent, and when (if) its acknowledgement came.
        struct Write: Sendable {
            var value: Int
            var sent: ContinuousClock.Instant
            var acknowledged: ContinuousClock.Instant?
        }

        /// A read: when it was sent and answered, and the value it saw (nil: refused).
        struct Read: Sendable {
            var node: Int
            var sent: ContinuousClock.Instant
            var received: ContinuousClock.Instant
            var value: Int?
        }

        /// Everything a run saw, checked at its end.
        final class Observations: Sendable {
            let samples = Locked<[ServingSample]>([])
            let writes = Locked<[Write]>([])
            let reads = Locked<[Read]>([])
            let stop = Locked(false)
            var stopped: Bool { stop.withLock { $0 } }
            /// While set, the writer sends nothing.
            let pause = Locked(false)

            /// Two nodes never serve the namespace at once: a node's word that it serves
            /// epoch e is never given after another node's word that it serves a later epoch
            /// (sent after that answer came), and no epoch is served by two nodes.
            func expectOneServerAtATime(_ namespace: String) {
                let said = samples.withLock { $0 }.compactMap { sample in
                    sample.serving[namespace].map { (sample: sample, epoch: $0) }
                }
                var servers: [Int: Set<Int>] = [:]
                for entry in said { servers[entry.epoch, default: []].insert(entry.sample.node) }
                for (epoch, nodes) in servers {
                    #expect(nodes.count == 1, "epoch \(epoch) was served by nodes \(nodes.sorted())")
                }
                var overlaps: [String] = []
                for earlier in said {
                    for later in said where later.epoch > earlier.epoch && earlier.sample.sent > later.sample.received {
                        overlaps.append(
                            "node \(earlier.sample.node) served epoch \(earlier.epoch) \(earlier.sample.sent - later.sample.received) after node \(later.sample.node) served epoch \(later.epoch)"
                        )
                    }
                }
                #expect(overlaps.isEmpty, "\(overlaps.count) overlaps: \(overlaps.prefix(3))")
            }

            /// Every read saw at least the newest value acknowledged before it was sent.
            func expectNoStaleRead() {
                let acknowledged = writes.withLock { $0 }.compactMap { write in
                    write.acknowledged.map { (at: $0, value: write.value) }
                }.sorted { $0.at < $1.at }
                var stale: [String] = []
                for read in reads.withLock({ $0 }) {
                    guard let value = read.value else { continue }
                    let newest = acknowledged.last { $0.at < read.sent }?.value ?? 0
                    if value < newest {
                        stale.append("node \(read.node) read \(value) after \(newest) was acknowledged")
                    }
                }
                #expect(stale.isEmpty, "\(stale.prefix(5))")
            }
        }

        /// One writer, one request in flight: `PUT /x` = 1, 2, 3… through `node`, each value
        /// also kept under `/log`, until told to stop.
        static func write(
            through node: ProcessTestServer,
            into observations: Observations
        ) async {
            var value = 0
            while !observations.stopped {
                if observations.pause.withLock({ $0 }) {
                    try? await Task.sleep(for: .milliseconds(20))
                    continue
                }
                value += 1
                let sent = ContinuousClock.now
                let answer = try? await node.request(
                    "PATCH",
                    "/.json?ns=\(namespace)",
                    body: #"{"x":\#(value),"log/v\#(value)":\#(value)}"#,
                    admin: true,
                    timeout: .seconds(5)
                )
                let acknowledged = answer?.status == 200 ? ContinuousClock.now : nil
                observations.writes.withLock { $0.append(Write(value: value, sent: sent, acknowledged: acknowledged)) }
                if acknowledged == nil { try? await Task.sleep(for: .milliseconds(50)) }
            }
        }

        /// Reads `/x` through node `index` every 20 ms until told to stop.
        static func read(
            through nodes: [ProcessTestServer],
            _ index: Int,
            into observations: Observations
        ) async {
            while !observations.stopped {
                let sent = ContinuousClock.now
                let answer = try? await nodes[index].request(
                    "GET",
                    "/x.json?ns=\(namespace)",
                    admin: true,
                    timeout: .seconds(5)
                )
                let value = answer?.status == 200 ? Int(answer?.body ?? "") : nil
                observations.reads.withLock {
                    $0.append(Read(node: index, sent: sent, received: .now, value: value))
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }

        /// Asks every node what it serves every 50 ms until told to stop.
        static func sample(_ nodes: [ProcessTestServer], into observations: Observations) async {
            await withTaskGroup(of: Void.self) { group in
                for (index, node) in nodes.enumerated() {
                    group.addTask {
                        while !observations.stopped {
                            let sample = await ServingSample.take(from: node, index: index)
                            observations.samples.withLock { $0.append(sample) }
                            try? await Task.sleep(for: .milliseconds(50))
                        }
                    }
                }
            }
        }

        /// Every acknowledged value is in `/log` and the changelog's epochs never go back.
        static func expectNothingLost(in cluster: PartitionedCluster, observations: Observations) async throws {
            let body = try await ClusterProcessTests.read("/log.json?ns=\(namespace)", through: cluster.nodes[0])
            let log = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Int])
            let acknowledged = observations.writes.withLock { $0 }.filter { $0.acknowledged != nil }.map(\.value)
            let missing = acknowledged.filter { log["v\($0)"] != $0 }
            #expect(missing.isEmpty, "acknowledged but lost: \(missing.prefix(10))")
            let changelog = try cluster.changelog(of: namespace)
            #expect(changelog.map(\.lsn) == Array(1...changelog.count), "the changelog has gaps")
            #expect(zip(changelog, changelog.dropFirst()).allSatisfy { $0.epoch <= $1.epoch }, "an epoch went back")
        }

        /// Runs the writer through `writer`, readers through `readers` and the samplers while
        /// `scenario` runs, then stops them.
        static func observe(
            _ cluster: PartitionedCluster,
            writer: Int,
            readers: [Int],
            during scenario: (Observations) async throws -> Void
        ) async throws -> Observations {
            let observations = Observations()
            let nodes = cluster.nodes
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await write(through: nodes[writer], into: observations) }
                for index in readers { group.addTask { await read(through: nodes, index, into: observations) } }
                group.addTask { await sample(nodes, into: observations) }
                do {
                    try await scenario(observations)
                } catch {
                    observations.stop.withLock { $0 = true }
                    throw error
                }
                observations.stop.withLock { $0 = true }
                try await group.waitForAll()
            }
            return observations
        }

        @Test func anOwnerCutOffFromPostgreSQLStopsServingWithinItsLeaseAndAnotherTakesOver() async throws {
            let cluster = try await PartitionedCluster(nodes: 3)
            defer { Task { await cluster.stop() } }
            let owner = try await cluster.firstWrite()
            let others = (0..<3).filter { $0 != owner }
            let marks = Marks((.now, .now))
            let observations = try await Self.observe(cluster, writer: others[0], readers: [0, 1, 2]) { observations in
                try await Task.sleep(for: .seconds(1))
                // No write reaches the cut owner (a write it cannot commit would make it give the
                // namespace up at once): only its lease stops it serving reads.
                observations.pause.withLock { $0 = true }
                try await Task.sleep(for: .milliseconds(200))
                try cluster.lab.cut(owner)
                marks.withLock { $0.cut = .now }
                try await Task.sleep(for: Self.lease + .milliseconds(500))
                observations.pause.withLock { $0 = false }
                // Another node takes the namespace over once the cut owner's lease ran out.
                try await eventually(timeout: Self.lease * 6, interval: .milliseconds(100)) {
                    let server = try? await cluster.server(of: Self.namespace)
                    return server != nil && server != owner
                }
                try await Task.sleep(for: .seconds(1))
                marks.withLock { $0.healed = .now }
                try cluster.lab.heal(owner)
                // The healed node serves again (forwarding to the new owner).
                try await eventually(timeout: .seconds(20), interval: .milliseconds(100)) {
                    observations.reads.withLock { reads in
                        reads.contains { $0.node == owner && $0.sent > marks.withLock(\.healed) && $0.value != nil }
                    }
                }
            }
            let (cutAt, healedAt) = marks.withLock { $0 }
            observations.expectOneServerAtATime(Self.namespace)
            observations.expectNoStaleRead()
            // The cut owner answered no read sent after its lease may have run out.
            let servedWhileCut = observations.reads.withLock { $0 }.filter {
                $0.node == owner && $0.value != nil && $0.sent > cutAt + Self.lease && $0.received < healedAt
            }
            #expect(servedWhileCut.isEmpty, "the cut owner served \(servedWhileCut.count) reads past its lease")
            // Writes resumed through another node within a few leases.
            let firstAfter = observations.writes.withLock { $0 }.filter { $0.sent > cutAt }.compactMap(\.acknowledged)
                .min()
            let takeover = try #require(firstAfter) - cutAt
            #expect(takeover < Self.lease * 4, "writes stalled \(takeover) after the cut")
            let lastServed = observations.reads.withLock { $0 }.filter {
                $0.node == owner && $0.value != nil && $0.sent > cutAt && $0.received < healedAt
            }.map(\.received).max()
            print(
                "partition: the cut owner served its last read \(lastServed.map { $0 - cutAt } ?? .zero) after the cut "
                    + "(lease \(Self.lease)); writes, paused for the lease + 0.5 s, resumed \(takeover) after it"
            )
            try await Self.expectNothingLost(in: cluster, observations: observations)
        }

        @Test func whenNoNodeReachesPostgreSQLNobodyServesPastTheLeaseAndOneOwnerResumes() async throws {
            let cluster = try await PartitionedCluster(nodes: 3)
            defer { Task { await cluster.stop() } }
            let owner = try await cluster.firstWrite()
            let marks = Marks((.now, .now))
            let observations = try await Self.observe(cluster, writer: (owner + 1) % 3, readers: [0, 1, 2]) {
                observations in
                try await Task.sleep(for: .seconds(1))
                for node in 0..<3 { try cluster.lab.cut(node) }
                marks.withLock { $0.cut = .now }
                try await Task.sleep(for: Self.lease * 2)
                marks.withLock { $0.healed = .now }
                for node in 0..<3 { try cluster.lab.heal(node) }
                try await eventually(timeout: .seconds(20), interval: .milliseconds(100)) {
                    observations.writes.withLock { writes in
                        writes.contains { $0.sent > marks.withLock(\.healed) && $0.acknowledged != nil }
                    }
                }
            }
            let (cutAt, healedAt) = marks.withLock { $0 }
            observations.expectOneServerAtATime(Self.namespace)
            observations.expectNoStaleRead()
            let served = observations.reads.withLock { $0 }.filter {
                $0.value != nil && $0.sent > cutAt + Self.lease && $0.received < healedAt
            }
            #expect(served.isEmpty, "nodes served \(served.count) reads past the lease with PostgreSQL cut off")
            let written = observations.writes.withLock { $0 }.filter {
                $0.sent > cutAt && ($0.acknowledged.map { $0 < healedAt } ?? false)
            }
            #expect(
                written.isEmpty,
                "writes sent after the cut were acknowledged before it healed: \(written.map(\.value))"
            )
            try await Self.expectNothingLost(in: cluster, observations: observations)
        }

        @Test func aNonOwnerCutOffFromPostgreSQLLeavesTheOwnerServing() async throws {
            let cluster = try await PartitionedCluster(nodes: 3)
            defer { Task { await cluster.stop() } }
            let owner = try await cluster.firstWrite()
            let cut = (owner + 1) % 3
            let marks = Marks((.now, .now))
            let observations = try await Self.observe(cluster, writer: owner, readers: [0, 1, 2]) { _ in
                try await Task.sleep(for: .seconds(1))
                try cluster.lab.cut(cut)
                marks.withLock { $0.cut = .now }
                try await Task.sleep(for: Self.lease * 3)
                marks.withLock { $0.healed = .now }
                try cluster.lab.heal(cut)
                try await Task.sleep(for: .seconds(1))
            }
            let (cutAt, healedAt) = marks.withLock { $0 }
            observations.expectOneServerAtATime(Self.namespace)
            observations.expectNoStaleRead()
            #expect(try await cluster.server(of: Self.namespace) == owner)
            // The owner's writes went on: no gap between acknowledgements while the other node was cut.
            let acknowledged = observations.writes.withLock { $0 }.compactMap(\.acknowledged).filter {
                $0 > cutAt && $0 < healedAt
            }
            let gaps = zip(acknowledged, acknowledged.dropFirst()).map { $1 - $0 }
            #expect(!acknowledged.isEmpty)
            #expect((gaps.max() ?? .zero) < .seconds(1), "the owner's writes stalled \(gaps.max() ?? .zero)")
            // The cut node answered every read (forwarded, or refused): none hung.
            let slowest = observations.reads.withLock { $0 }.filter { $0.node == cut }.map { $0.received - $0.sent }
                .max()
            #expect((slowest ?? .zero) < .seconds(5), "a read through the cut node took \(slowest ?? .zero)")
            let throughCut = observations.reads.withLock { $0 }.filter {
                $0.node == cut && $0.sent > cutAt && $0.received < healedAt
            }
            print(
                "partition: through the node cut off, \(throughCut.filter { $0.value != nil }.count) reads served "
                    + "and \(throughCut.filter { $0.value == nil }.count) refused; the owner's longest gap "
                    + "between acknowledgements \(gaps.max() ?? .zero)"
            )
            try await Self.expectNothingLost(in: cluster, observations: observations)
        }
    }
}
