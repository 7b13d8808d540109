import Foundation
import HearthTestSupport
import Testing

/// A rules file whose rule expressions span several lines (as Firebase's own examples write
/// them) loads through `hearth serve --rules` and `PUT /.settings/rules.json` and is enforced;
/// errors inside such a rule, and rules Firebase refuses at deploy, are refused with the right
/// `file:line:col` (Hearth issue 13).
@Suite(.serialized)
struct MultiLineRulesProcessTests {
    static let notes = """
        {
          // A rule may span lines of the file, as in Firebase's editor.
          "rules": {
            "open": { ".read": true },
            "notes": {
              "$slot": {
                ".read": "auth == null &&
                          root.child('open').val() == true",
                ".write": "auth.uid != 'mallory' &&
                           newData.isString() &&
                           newData.val() == 'note-' + $slot + '-' + 1"
              }
            }
          }
        }

        """

    /// The same notes, readable only when `open` is 2 (installed through PUT).
    static let stricter = """
        {
          "rules": {
            "notes": {
              "$slot": {
                ".read": "root.child('open').val() ==
                          1 + 1",
                ".write": false
              }
            }
          }
        }

        """

    static let withErrors = """
        {
          "rules": {
            "notes": {
              ".read": "auth == null &&
                        auht.uid == 'x'",
              ".write": "!data.child('locked').val()"
            }
          }
        }

        """

    @Test func serveLoadsAMultiLineRulesFileAndEnforcesItThenAPutReplacesIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.notes.write(to: directory.appending("notes.rules.json"), atomically: true, encoding: .utf8)
        let server = try await ProcessTestServer.start(
            dataDirectory: directory.appending("data"),
            workingDirectory: directory.url,
            arguments: ["--rules", "notes.rules.json"]
        )

        // The multi-line `.write`: '+' with a wildcard and a number, `auth.uid` of null.
        let written = try await server.request("PUT", "/notes/a.json", body: #""note-a-1""#)
        #expect(written.status == 200, "\(written.body)")
        #expect(try await server.request("PUT", "/notes/b.json", body: #""note-a-1""#).status == 401)
        #expect(try await server.request("PUT", "/notes/a.json", body: "7").status == 401)

        // The multi-line `.read`: denied until `open` is true.
        #expect(try await server.request("GET", "/notes/a.json").status == 401)
        #expect(try await server.request("PUT", "/open.json", body: "true", admin: true).status == 200)
        let read = try await server.request("GET", "/notes/a.json")
        #expect(read.status == 200)
        #expect(read.body == #""note-a-1""#)

        // A multi-line document through PUT /.settings/rules.json is in force when answered.
        let put = try await server.request("PUT", "/.settings/rules.json", body: Self.stricter, admin: true)
        #expect(put.status == 200, "\(put.body)")
        #expect(try await server.request("GET", "/notes/a.json").status == 401)
        #expect(try await server.request("PUT", "/open.json", body: "2", admin: true).status == 200)
        #expect(try await server.request("GET", "/notes/a.json").status == 200)
        #expect(try await server.request("GET", "/.settings/rules.json", admin: true).body == Self.stricter)

        // Errors inside a multi-line rule, and a rule Firebase refuses at deploy: 400 with
        // file:line:col, and the rules in force stay.
        let refused = try await server.request("PUT", "/.settings/rules.json", body: Self.withErrors, admin: true)
        #expect(refused.status == 400)
        let error = try Self.errorMessage(refused.body)
        let expected = """
            notes.rules.json:5:17: unknown variable 'auht'; did you mean 'auth'?
             |                 auht.uid == 'x'",
             | ................^
            """
        #expect(error.contains(expected), "\(error)")
        #expect(
            error.contains(
                """
                notes.rules.json:6:19: operand of '!' must be a boolean, got a value that may not be one; \
                compare it, e.g. '... == true'
                """
            ),
            "\(error)"
        )
        #expect(try await server.request("GET", "/.settings/rules.json", admin: true).body == Self.stricter)
        #expect(try await server.request("GET", "/notes/a.json").status == 200)
        _ = try await server.terminate()
    }

    @Test func rulesCheckPointsInsideAMultiLineRule() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.withErrors.write(to: directory.appending("bad.rules.json"), atomically: true, encoding: .utf8)
        try Self.notes.write(to: directory.appending("good.rules.json"), atomically: true, encoding: .utf8)

        let bad = try await HearthProcess.run(["rules", "check", "bad.rules.json"], directory: directory.url)
        #expect(bad.status == 1)
        #expect(
            bad.stderr.contains(
                """
                bad.rules.json:5:17: unknown variable 'auht'; did you mean 'auth'?
                 |                 auht.uid == 'x'",
                 | ................^
                bad.rules.json:6:19: operand of '!' must be a boolean
                """
            ),
            "stderr: \(bad.stderr)"
        )
        let good = try await HearthProcess.run(["rules", "check", "good.rules.json"], directory: directory.url)
        #expect(good.status == 0, "stderr: \(good.stderr)")
        #expect(good.stdout.contains("good.rules.json: ok"))
    }

    /// The `error` member of a JSON error body.
    static func errorMessage(_ body: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return try #require(object?["error"] as? String, "no error in \(body)")
    }
}
