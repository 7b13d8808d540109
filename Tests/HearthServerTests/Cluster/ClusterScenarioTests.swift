import Foundation
import HearthCluster
import HearthServer
import HearthTestSupport
import Testing

/// Issue 39, test 1, for the REST tables: every REST scenario table of the single-node suite,
/// sent to a node of a two-node cluster that does not own the namespace (so forwarded to the
/// owner), gives the same answers and leaves the same data. The nodes run in this process over
/// a database of the private PostgreSQL (`PrivatePostgres`); between scenarios the namespace is
/// emptied (each single-node scenario starts from an empty server). `.ci/run` runs this suite
/// with the cluster's process tests, after the rest.
@Suite("the REST scenario tables through a cluster", .serialized)
struct ClusterScenarioTests {
    /// Two nodes over a new database, each with `rules` as its rules file (nil: none); node 0
    /// owns `default` (its first request took it), `body` gets (owner, the other node).
    static func withCluster(
        rules: String?,
        run body: (_ owner: TestServer, _ entry: TestServer) async throws -> Void
    ) async throws {
        let address = try ClusterAddress(parsing: PrivatePostgres.shared.get().database())
        var temporaries: [TemporaryDirectory] = []
        var nodes: [(running: RunningServer, server: TestServer)] = []
        defer { for temporary in temporaries { temporary.remove() } }
        do {
            for index in 0..<2 {
                let temporary = try TemporaryDirectory(prefix: "hearth-cluster-scenarios")
                temporaries.append(temporary)
                let directory = temporary.url
                var configuration = HearthServerConfiguration.testing(in: directory)
                try FileManager.default.createDirectory(
                    at: directory.appendingPathComponent("rules"),
                    withIntermediateDirectories: true
                )
                if let rules { try rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8) }
                configuration.cluster = ClusterSettings(address: address, leaseSeconds: 10)
                nodes.append(try await TestServer.start(configuration, in: directory))
                if index == 0 {
                    let taken = try await nodes[0].server.send("GET", "/.json?auth=\(TestServer.adminSecret)")
                    guard taken.status == 200 else { throw TestFailure("the owner answered \(taken.status)") }
                }
            }
            try await expectForwarded(through: nodes[1].server)
            try await body(nodes[0].server, nodes[1].server)
            try await expectForwarded(through: nodes[1].server)
        } catch {
            for node in nodes { await node.running.shutdown() }
            throw error
        }
        for node in nodes { await node.running.shutdown() }
    }

    /// `entry` does not serve `default` itself: the cluster says another node owns it.
    static func expectForwarded(through entry: TestServer) async throws {
        let answer = try await entry.send("GET", "/.well-known/hearth/cluster?auth=\(TestServer.adminSecret)")
        let view = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        let this = try #require(view["this"] as? [String: Any])
        let serving = try #require(this["serving"] as? [String: Any])
        let owners = try #require(view["owners"] as? [String: String])
        #expect(serving["default"] == nil, "\(answer.body)")
        #expect(owners["default"] != nil && owners["default"] != this["id"] as? String, "\(answer.body)")
    }

    /// Runs every scenario of `tables` through the node that does not own the namespace.
    static func check(_ tables: [(name: String, scenarios: [RESTScenario])], rules: String?) async throws {
        try await withCluster(rules: rules) { owner, entry in
            var count = 0
            for table in tables {
                for scenario in table.scenarios {
                    let emptied = try await owner.send("DELETE", "/.json?auth=\(TestServer.adminSecret)")
                    #expect(emptied.status == 200)
                    let problems = try await scenario.run(on: entry)
                    #expect(problems.isEmpty, "\(table.name) \(scenario.id): \(problems.joined(separator: "; "))")
                    count += 1
                }
            }
            #expect(count > 0)
        }
    }

    @Test func theTablesUnderNoRulesFile() async throws {
        let shallow = ShallowPagingTests.refused.map { scenario -> RESTScenario in
            var scenario = scenario
            scenario.setup.insert(("/list", ShallowPagingTests.document), at: 0)
            return scenario
        }
        try await Self.check(
            [
                ("RESTMethodTests", RESTMethodTests.scenarios),
                ("MethodOverrideTests", MethodOverrideTests.scenarios),
                ("RESTCredentialTests", RESTCredentialTests.scenarios),
                ("RESTBadInputTests", RESTBadInputTests.scenarios),
                ("RESTPatchKeySpellingTests", RESTPatchKeySpellingTests.scenarios),
                ("ShallowPagingTests", shallow),
            ],
            rules: nil
        )
    }

    @Test func theFormDecodingTable() async throws {
        try await Self.check(
            [("RESTFormDecodingTests", RESTFormDecodingTests.scenarios)],
            rules: RESTFormDecodingTests.rules
        )
    }

    @Test func theQueryTable() async throws {
        try await Self.check([("RESTQueryTests", RESTQueryTests.scenarios)], rules: RESTQueryTests.rules)
    }
}
