import Foundation
import HearthCluster
import HearthServer

extension TestServer {
    /// Set (`$throughCluster.withValue(true)`) to run a test written for one server through a
    /// cluster instead: each `TestServer.with` then starts two nodes (in this process) over a
    /// new database of the private PostgreSQL, node 0 takes `default`, and the test talks to
    /// node 1, which forwards its requests and relays its WebSockets to node 0.
    @TaskLocal public static var throughCluster = false

    /// `with(prepare:run:)` through a two-node cluster: both nodes prepared alike (then each by
    /// `prepareNode` with its index: 0 owns `default`), `body` given the node that does not own
    /// `default`.
    public static func withCluster(
        prepare: (inout HearthServerConfiguration, URL) throws -> Void = { _, _ in },
        prepareNode: (Int, inout HearthServerConfiguration) -> Void = { _, _ in },
        run body: (TestServer) async throws -> Void
    ) async throws {
        try await withClusterAndOwner(prepare: prepare, prepareNode: prepareNode) { entry, _ in try await body(entry) }
    }

    /// `withCluster`, `body` also given node 0 (which owns `default`), to stop it.
    public static func withClusterAndOwner(
        prepare: (inout HearthServerConfiguration, URL) throws -> Void = { _, _ in },
        prepareNode: (Int, inout HearthServerConfiguration) -> Void = { _, _ in },
        run body: (_ entry: TestServer, _ owner: RunningServer) async throws -> Void
    ) async throws {
        let address = try ClusterAddress(parsing: PrivatePostgres.shared.get().database())
        var temporaries: [TemporaryDirectory] = []
        var nodes: [(running: RunningServer, server: TestServer)] = []
        defer { for temporary in temporaries { temporary.remove() } }
        do {
            for index in 0..<2 {
                let temporary = try TemporaryDirectory(prefix: "hearth-cluster-tests")
                temporaries.append(temporary)
                let directory = temporary.url
                var configuration = try configuration(in: directory, prepare: prepare)
                configuration.cluster = ClusterSettings(address: address, leaseSeconds: 10)
                prepareNode(index, &configuration)
                nodes.append(try await start(configuration, in: directory))
                if index == 0 {
                    // The owner's first request takes the namespace.
                    let taken = try await nodes[0].server.send("GET", "/.json?shallow=true&auth=\(adminSecret)")
                    guard taken.status == 200 else {
                        throw TestFailure("node 0 did not take 'default': \(taken.status) \(taken.body)")
                    }
                }
            }
            try await body(nodes[1].server, nodes[0].running)
        } catch {
            for node in nodes { await node.running.shutdown() }
            throw error
        }
        for node in nodes { await node.running.shutdown() }
    }

    /// Runs each of `tests` (single-node tests that start their servers with `with`) through a
    /// cluster, going on past a failure; returns the failures, each with its test's name.
    public static func failuresThroughCluster(_ tests: [(String, () async throws -> Void)]) async -> [String] {
        var failures: [String] = []
        for (name, test) in tests {
            do {
                try await $throughCluster.withValue(true) { try await test() }
            } catch {
                failures.append("\(name): \(error)")
            }
        }
        return failures
    }
}
