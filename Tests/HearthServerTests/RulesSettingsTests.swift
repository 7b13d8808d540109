import Foundation
import HearthTestSupport
import Testing

/// `GET|PUT /.settings/rules.json`: a document is compiled; one with errors is refused with 400
/// and its diagnostics (file, line, column, source line, caret), the old rules stay; one that
/// compiles is installed and written to the namespace's file verbatim.
struct RulesSettingsTests {
    struct Refusal: Sendable, CustomStringConvertible {
        var id: String
        var document: String
        /// The error message, `FILE` standing for the namespace's rules file path.
        var error: String
        var description: String { id }
    }

    static let refusals: [Refusal] = [
        Refusal(
            id: "JSON syntax: unterminated document",
            document: "{\n  \"rules\": {\n    \".read\": true,\n",
            error: "FILE:4:1: unexpected end of document; expected a key in double quotes\n | \n | ^"
        ),
        Refusal(
            id: "unknown variable, after a comment",
            document: "{\n  // c\n  \"rules\": {\n    \".read\": \"auht != null\"\n  }\n}\n",
            error: """
                FILE:4:15: unknown variable 'auht'; did you mean 'auth'?
                 |     ".read": "auht != null"
                 | ..............^
                """
        ),
        Refusal(
            id: "every error, sorted",
            document:
                "{\n  \"rules\": {\n    \".reed\": true,\n    \"x\": {\".write\": \"newData.val() > \"}\n  }\n}\n",
            error: """
                FILE:3:5: unknown rule '.reed'; did you mean '.read'?
                 |     ".reed": true,
                 | ....^
                FILE:4:38: unexpected end of expression; expected a value
                 |     "x": {".write": "newData.val() > "}
                 | .....................................^
                """
        ),
    ]

    static let current = """
        {
          /* the rules in force */
          "rules": {".read": "auth != null"}
        }
        """

    @Test(arguments: refusals)
    func aDocumentWithErrorsIsRefusedAndTheOldRulesStay(_ refusal: Refusal) async throws {
        try await TestServer.with(
            prepare: { _, directory in
                try Self.current.write(
                    to: directory.appendingPathComponent("rules/shop.rules.json"),
                    atomically: true,
                    encoding: .utf8
                )
            },
            run: { server in
                let admin = "auth=\(TestServer.adminSecret)"
                let file = server.directory.appendingPathComponent("rules/shop.rules.json")
                let reply = try await server.send(
                    "PUT",
                    "/.settings/rules.json?ns=shop&\(admin)",
                    text: refusal.document
                )
                #expect(reply.status == 400)
                let expected = refusal.error.replacingOccurrences(of: "FILE", with: file.path)
                #expect(
                    JSONCompare.canonical(reply.body) == JSONCompare.canonical("{\"error\": \(jsonQuoted(expected))}")
                )
                #expect(reply.body.hasPrefix("{\n  \"error\" : \""))

                let document = try await server.send("GET", "/.settings/rules.json?ns=shop&\(admin)")
                #expect(document.status == 200)
                #expect(document.body == Self.current)
                #expect(try String(contentsOf: file, encoding: .utf8) == Self.current)
            }
        )
    }

    @Test func aDocumentThatCompilesIsInstalledAndWrittenVerbatim() async throws {
        try await TestServer.with { server in
            let admin = "auth=\(TestServer.adminSecret)"
            let file = server.directory.appendingPathComponent("rules/database.rules.json")
            #expect(!FileManager.default.fileExists(atPath: file.path))
            try await server.put("/items", #"{"x":{"n":2},"y":{"n":1}}"#)
            #expect(try await server.send("GET", "/items.json?orderBy=%22n%22&\(admin)").status == 400)

            let document = """
                {
                  // comments and layout are kept
                  "rules": {
                    "items": {".indexOn": ["n"], ".read": "auth != null"}   /* trailing */
                  }
                }

                """
            let reply = try await server.send("PUT", "/.settings/rules.json?\(admin)", text: document)
            #expect(reply.status == 200)
            #expect(JSONCompare.equal(reply.body, #"{"status":"ok"}"#))
            #expect(try String(contentsOf: file, encoding: .utf8) == document)
            #expect(try await server.send("GET", "/.settings/rules.json?\(admin)").body == document)
            let ordered = try await server.send("GET", "/items.json?orderBy=%22n%22&limitToFirst=1&\(admin)")
            #expect(ordered.status == 200)
            #expect(JSONCompare.equal(ordered.body, #"{"y":{"n":1}}"#))

            // The watcher does not reload the file the put wrote. A fence: an edit of the file,
            // which a later poll installs; nothing was installed between the two (the history
            // keeps every document installed, newest first).
            let edit = "// edited\n" + document
            try edit.write(to: file, atomically: false, encoding: .utf8)
            let reloaded = try await eventually(timeout: .seconds(10)) {
                try await server.send("GET", "/.settings/rules.json?\(admin)").body
            } until: {
                $0 == edit
            }
            #expect(reloaded == edit)
            let versions = try await RulesHistoryTests.versions(server).prefix(2)
            #expect(versions.map { $0["text"] as? String } == [edit, document])
            #expect(versions.map { $0["origin"] as? String } == ["file", "put"])
        }
    }

    @Test func onlyTheAdminReadsOrReplacesTheRules() async throws {
        try await TestServer.with { server in
            let user = "auth=\(TokenMinter.token())"
            #expect(try await server.send("GET", "/.settings/rules.json?\(user)").status == 401)
            let put = try await server.send("PUT", "/.settings/rules.json?\(user)", text: #"{"rules": {}}"#)
            #expect(put.status == 401)
            let document = try await server.send("GET", "/.settings/rules.json?auth=\(TestServer.adminSecret)")
            #expect(document.body == "{\"rules\": {\".read\": false, \".write\": false}}")
        }
    }
}
