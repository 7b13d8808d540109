import Foundation
import HearthTestSupport
import Testing

extension ClusterScenarioTests {
    static let openRules = #"{"rules": {".read": true, ".write": true}}"#
    static let readOnlyRules = #"{"rules": {".read": true, ".write": false}}"#
    static let indexedRules = #"{"rules": {".read": true, ".write": true, "items": {".indexOn": ["n"]}}}"#

    /// The rules files of a cluster's nodes: the file a node starts with does not override the
    /// cluster's rules (it only seeds a cluster that has none), an edit of the file of a node
    /// that does not serve the namespace is put in force by its owner, and an edit with errors
    /// publishes nothing.
    @Test func anEditOfANonOwnersRulesFileIsPutInForceByTheOwner() async throws {
        try await TestServer.withCluster(
            prepare: { configuration, _ in
                try Self.openRules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
                let own = Self.nodeOwnRulesFile(configuration.rulesFile)
                try FileManager.default.createDirectory(
                    atPath: (own as NSString).deletingLastPathComponent,
                    withIntermediateDirectories: true
                )
                try Self.readOnlyRules.write(toFile: own, atomically: true, encoding: .utf8)
            },
            prepareNode: { index, configuration in
                // Node 1 (the one the test talks to) starts with a file of its own.
                if index == 1 { configuration.rulesFile = Self.nodeOwnRulesFile(configuration.rulesFile) }
            }
        ) { entry in
            try await Self.expectForwarded(through: entry)
            let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]
            let file = entry.directory.appendingPathComponent("rules/own/database.rules.json")
            // The owner's file seeded the cluster; node 1's, there at its start, changed nothing.
            #expect(try await entry.send("PUT", "/items.json", text: #"{"x":{"n":2},"y":{"n":1}}"#).status == 200)
            try await Task.sleep(for: .seconds(1))  // several looks at node 1's folder
            #expect(try await entry.send("PUT", "/items/z.json", text: #"{"n":3}"#).status == 200)
            let unindexed = try await entry.send("GET", "/items.json?orderBy=%22n%22&limitToFirst=1")
            #expect(unindexed.status == 400, "\(unindexed.body)")

            // An edit of node 1's file: the owner puts it in force, indexes and all (it builds a
            // document's indexes before the document is in force).
            try Self.indexedRules.write(to: file, atomically: false, encoding: .utf8)
            let inForce = try await eventually(timeout: .seconds(10)) {
                try await entry.send("GET", "/.settings/rules.json", headers: admin)
            } until: {
                $0.body == Self.indexedRules
            }
            #expect(inForce.body == Self.indexedRules, "\(inForce.status) \(inForce.body)")
            let ordered = try await entry.send("GET", "/items.json?orderBy=%22n%22&limitToFirst=1")
            #expect(JSONCompare.equal(ordered.body, #"{"y":{"n":1}}"#), "\(ordered.status) \(ordered.body)")
            let versions = try await RulesHistoryTests.versions(entry)
            #expect(versions.first?["text"] as? String == Self.indexedRules)
            #expect(versions.first?["origin"] as? String == "file")

            // An edit with errors publishes nothing; the rules in force stay.
            try #"{"rules": {".write": "auht != null"}}"#.write(to: file, atomically: false, encoding: .utf8)
            try await Task.sleep(for: .seconds(1))
            #expect(try await RulesHistoryTests.versions(entry).count == versions.count)
            #expect(try await entry.send("PUT", "/items/w.json", text: #"{"n":4}"#).status == 200)

            // Node 1's edit to read-only: writes through either node are refused.
            try Self.readOnlyRules.write(to: file, atomically: false, encoding: .utf8)
            let refused = try await eventually(timeout: .seconds(10)) {
                try await entry.send("PUT", "/items/v.json", text: #"{"n":5}"#).status
            } until: {
                $0 == 401
            }
            #expect(refused == 401)
        }
    }

    /// `rules/own/database.rules.json` beside `rules/database.rules.json`.
    static func nodeOwnRulesFile(_ rulesFile: String) -> String {
        let folder = (rulesFile as NSString).deletingLastPathComponent
        return ((folder as NSString).appendingPathComponent("own") as NSString)
            .appendingPathComponent("database.rules.json")
    }
}
