import Foundation
import Testing

/// The rules history: every published document kept (newest first), and a rollback that puts
/// an old one back in force as a new version.
@Suite struct RulesHistoryTests {
    static let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]
    static let closed = #"{"rules": {".read": false}}"#
    static let open = #"{"rules": {".read": true}}"#

    static func versions(_ server: TestServer) async throws -> [[String: Any]] {
        let reply = try await server.send("GET", "/.settings/rules/history.json", headers: admin)
        #expect(reply.status == 200, "\(reply.body)")
        let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        return try #require(object?["versions"] as? [[String: Any]])
    }

    @Test func publishedDocumentsAreKeptAndAnOldOneCanBeRolledBack() async throws {
        try await TestServer.with(rules: Self.closed) { server in
            #expect(try await server.send("GET", "/x.json").status == 401)
            #expect(
                try await server.send("PUT", "/.settings/rules.json", headers: Self.admin, text: Self.open).status
                    == 200
            )
            // A document with errors is refused and not kept.
            let bad = #"{"rules": {".read": "nope("}}"#
            #expect(try await server.send("PUT", "/.settings/rules.json", headers: Self.admin, text: bad).status == 400)
            #expect(try await server.send("GET", "/x.json").status == 200)
            var versions = try await Self.versions(server)
            #expect(versions.map { $0["text"] as? String } == [Self.open, Self.closed])
            #expect(versions.map { $0["version"] as? Double } == [2, 1])
            #expect(versions.first?["origin"] as? String == "put")
            // Back to version 1: in force again, and the newest version.
            let rollback = try await server.send(
                "POST",
                "/.settings/rules:rollback",
                headers: Self.admin,
                text: #"{"version": 1}"#
            )
            #expect(rollback.status == 200, "\(rollback.body)")
            #expect(rollback.body.contains(#""version":3"#))
            #expect(try await server.send("GET", "/x.json").status == 401)
            versions = try await Self.versions(server)
            #expect(versions.first?["text"] as? String == Self.closed)
            #expect(versions.count == 3)
            // Refusals.
            let missing = try await server.send(
                "POST",
                "/.settings/rules:rollback",
                headers: Self.admin,
                text: #"{"version": 9}"#
            )
            #expect(missing.status == 400)
            #expect(missing.body.contains("version 9 is not in the history"))
            #expect(try await server.send("GET", "/.settings/rules/history.json").status == 401)
            #expect(try await server.send("POST", "/.settings/rules:rollback", text: #"{"version": 1}"#).status == 401)
        }
    }
}
