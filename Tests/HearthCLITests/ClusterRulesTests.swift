import Foundation
import HearthTestSupport
import Testing

extension ClusterProcessTests {
    /// A cluster's rules are the cluster's (the contract's "Operations"): a `PUT
    /// /.settings/rules.json` through any node holds on every node and survives its owner, and a
    /// node's rules file seeds a cluster that has none, after which the cluster's rules win over
    /// any node's file.
    @Suite("a cluster's rules")
    struct ClusterRulesTests {
        typealias Cluster = ClusterProcessTests.Cluster

        @Test func rulesPutThroughOneNodeHoldOnEveryNodeAndSurviveTheOwner() async throws {
            var cluster = try await Cluster.start(nodes: 2)
            defer { Task { [cluster] in await cluster.stop() } }
            // No rules anywhere: nobody but the admin reads the namespace.
            #expect(try await cluster.nodes[1].request("GET", "/open.json?ns=club").status == 401)
            let put = try await cluster.nodes[0].request(
                "PUT",
                "/.settings/rules.json?ns=club",
                body: #"{"rules":{".read":true,".write":"auth != null"}}"#,
                admin: true
            )
            #expect(put.status == 200, "\(put.body)")
            #expect(
                try await cluster.nodes[0].request("PUT", "/open.json?ns=club", body: #""door""#, admin: true).status
                    == 200
            )
            for node in cluster.nodes {
                let read = try await node.request("GET", "/open.json?ns=club")
                #expect(read.status == 200, "\(read.body)")
                #expect(read.body == #""door""#)
            }

            let owner = try await cluster.owner(of: "club")
            let survivor = cluster.nodes[1 - owner]
            await cluster.nodes[owner].kill()
            // The survivor takes the namespace with the cluster's rules, not the default ones.
            _ = try await ClusterProcessTests.read("/open.json?ns=club", through: survivor)
            let read = try await survivor.request("GET", "/open.json?ns=club")
            #expect(read.status == 200, "\(read.body)")
            #expect(try await survivor.request("PUT", "/open.json?ns=club", body: "1").status == 401)
            let document = try await survivor.request("GET", "/.settings/rules.json?ns=club", admin: true)
            #expect(document.body == #"{"rules":{".read":true,".write":"auth != null"}}"#)
            let history = try await survivor.request("GET", "/.settings/rules/history.json?ns=club", admin: true)
            #expect(history.status == 200)
            #expect(history.body.contains(#""version":1"#), "\(history.body)")
            #expect(history.body.contains(#""origin":"put""#), "\(history.body)")

            // A rollback through the restarted node is the cluster's too.
            let restarted = try await Cluster.startNode(owner, directory: cluster.directory, database: cluster.database)
            cluster.nodes[owner] = restarted
            let again = try await restarted.request(
                "PUT",
                "/.settings/rules.json?ns=club",
                body: #"{"rules":{".read":false}}"#,
                admin: true
            )
            #expect(again.status == 200, "\(again.body)")
            #expect(try await survivor.request("GET", "/open.json?ns=club").status == 401)
            let rollback = try await restarted.request(
                "POST",
                "/.settings/rules:rollback?ns=club",
                body: #"{"version":1}"#,
                admin: true
            )
            #expect(rollback.status == 200, "\(rollback.body)")
            #expect(rollback.body.contains(#""version":3"#), "\(rollback.body)")
            for node in cluster.nodes {
                #expect(try await node.request("GET", "/open.json?ns=club").status == 200)
            }
        }

        @Test func aNodesFileSeedsAClusterWithoutRulesAndTheClusterWinsAfter() async throws {
            let database = try PrivatePostgres.shared.get().database()
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            var nodes: [ProcessTestServer] = []
            defer { Task { [nodes] in for node in nodes { await node.kill() } } }
            for (index, read) in [(0, "true"), (1, "false")] {
                let workingDirectory = directory.appending("work\(index)")
                try FileManager.default.createDirectory(
                    at: workingDirectory.appendingPathComponent("rules"),
                    withIntermediateDirectories: true
                )
                try Data(#"{"rules":{".read":\#(read)}}"#.utf8).write(
                    to: workingDirectory.appendingPathComponent("rules/database.rules.json")
                )
                nodes.append(
                    try await Cluster.startNode(
                        index,
                        directory: directory,
                        database: database,
                        workingDirectory: workingDirectory
                    )
                )
            }
            // The first node takes `default` first: its file becomes the cluster's rules.
            #expect(try await nodes[0].request("PUT", "/hello.json", body: #""world""#, admin: true).status == 200)
            for node in nodes {
                #expect(try await node.request("GET", "/hello.json").status == 200)
            }
            await nodes[0].kill()
            // The second node's file says otherwise; the cluster's rules win when it takes over.
            _ = try await ClusterProcessTests.read("/hello.json", through: nodes[1])
            let read = try await nodes[1].request("GET", "/hello.json")
            #expect(read.status == 200, "\(read.body)")
            #expect(read.body == #""world""#)
        }
    }
}
