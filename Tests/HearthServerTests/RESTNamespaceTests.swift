import Foundation
import Testing

/// Namespaces (`?ns=`) have their own data and their own rules.
struct RESTNamespaceTests {
    @Test func namespacesAreIsolated() async throws {
        try await TestServer.with { server in
            try await server.put("/a", "1", ns: "chat")
            try await server.put("/a", "2")
            #expect(try await server.get("/a", ns: "chat") == "1")
            #expect(try await server.get("/a") == "2")
            #expect(try await server.get("/a", ns: "other") == "null")
            #expect(try await server.get("/a", ns: "default") == "2")
        }
    }

    @Test func rulesDocumentDefaultsToLockedDown() async throws {
        try await TestServer.with { server in
            let reply = try await server.send("GET", "/.settings/rules.json?auth=\(TestServer.adminSecret)")
            #expect(reply.status == 200)
            #expect(JSONCompare.equal(reply.body, #"{"rules": {".read": false, ".write": false}}"#))
        }
    }

    @Test func rulesReplaceValidatesAppliesAndPersists() async throws {
        try await TestServer.with { server in
            let admin = "auth=\(TestServer.adminSecret)"
            try await server.put("/items", #"{"x":{"n":2},"y":{"n":1}}"#, ns: "shop")
            let unindexed = try await server.send("GET", "/items.json?ns=shop&orderBy=%22n%22&\(admin)")
            #expect(unindexed.status == 400)
            #expect(unindexed.body.contains("Index not defined"))

            let bad = try await server.send("PUT", "/.settings/rules.json?ns=shop&\(admin)", text: "{\"rules\": {")
            #expect(bad.status == 400)
            let stillDefault = try await server.send("GET", "/.settings/rules.json?ns=shop&\(admin)")
            #expect(JSONCompare.equal(stillDefault.body, #"{"rules": {".read": false, ".write": false}}"#))

            let document = """
                {
                  // comments are allowed
                  "rules": {"items": {".indexOn": "n"}}
                }
                """
            let good = try await server.send("PUT", "/.settings/rules.json?ns=shop&\(admin)", text: document)
            #expect(good.status == 200)
            #expect(JSONCompare.equal(good.body, #"{"status":"ok"}"#))
            let verbatim = try await server.send("GET", "/.settings/rules.json?ns=shop&\(admin)")
            #expect(verbatim.body == document)
            let file = server.directory.appendingPathComponent("rules/shop.rules.json")
            #expect((try? String(contentsOf: file, encoding: .utf8)) == document)

            let ordered = try await server.send(
                "GET",
                "/items.json?ns=shop&orderBy=%22n%22&limitToFirst=1&\(admin)"
            )
            #expect(ordered.status == 200)
            #expect(JSONCompare.equal(ordered.body, #"{"y":{"n":1}}"#))

            let defaultRules = try await server.send("GET", "/.settings/rules.json?\(admin)")
            #expect(JSONCompare.equal(defaultRules.body, #"{"rules": {".read": false, ".write": false}}"#))
        }
    }

    @Test func rulesFilesAreLoadedPerNamespace() async throws {
        try await TestServer.with(
            prepare: { _, directory in
                try #"{"rules": {"a": {".indexOn": "v"}}}"#.write(
                    to: directory.appendingPathComponent("rules/database.rules.json"),
                    atomically: true,
                    encoding: .utf8
                )
                try #"{"rules": {"b": {".indexOn": "v"}}}"#.write(
                    to: directory.appendingPathComponent("rules/chat.rules.json"),
                    atomically: true,
                    encoding: .utf8
                )
            },
            run: { server in
                let admin = "auth=\(TestServer.adminSecret)"
                try await server.put("/a", #"{"x":{"v":1}}"#)
                try await server.put("/b", #"{"x":{"v":1}}"#, ns: "chat")
                #expect(try await server.send("GET", "/a.json?orderBy=%22v%22&\(admin)").status == 200)
                #expect(try await server.send("GET", "/b.json?orderBy=%22v%22&\(admin)").status == 400)
                #expect(try await server.send("GET", "/b.json?ns=chat&orderBy=%22v%22&\(admin)").status == 200)
                #expect(try await server.send("GET", "/a.json?ns=chat&orderBy=%22v%22&\(admin)").status == 400)
            }
        )
    }

    @Test func seedIsImportedIntoAnEmptyStoreOnly() async throws {
        let seed = #"{"users":{"u1":{"displayName":"Ada"}}}"#
        try await TestServer.with(
            prepare: { configuration, directory in
                let file = directory.appendingPathComponent("seed.json")
                try seed.write(to: file, atomically: true, encoding: .utf8)
                configuration.seedFile = file.path
            },
            run: { server in
                let root = try await server.get("/")
                #expect(JSONCompare.equal(root, seed))
            }
        )
    }

    @Test func missingSeedFileIsSkipped() async throws {
        try await TestServer.with(
            prepare: { configuration, directory in
                configuration.seedFile = directory.appendingPathComponent("absent.json").path
            },
            run: { server in
                let root = try await server.get("/")
                #expect(root == "null")
            }
        )
    }
}
