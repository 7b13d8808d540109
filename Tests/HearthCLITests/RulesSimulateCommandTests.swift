import Foundation
import Testing

/// `hearth rules simulate` as a process: the decision, the deciding rule and the trace; exit 0
/// allowed, 2 denied, 1 or 64 for bad input.
struct RulesSimulateCommandTests {
    static let rules = """
        {
          "rules": {
            "notes": {
              "$id": {
                ".read": "auth != null",
                ".write": "auth.uid == newData.child('owner').val()",
                "text": { ".validate": "newData.isString() && newData.val().length <= 5" }
              }
            }
          }
        }
        """

    @Test func anAllowedReadNamesTheRuleThatGrantedIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.rules.write(to: directory.appending("r.rules.json"), atomically: true, encoding: .utf8)
        let read = try await HearthProcess.run(
            ["rules", "simulate", "r.rules.json", "--op", "read", "--path", "/notes/n1", "--auth", #"{"uid":"amy"}"#],
            directory: directory.url
        )
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.hasPrefix(#"allowed by /rules/notes/$id/.read at /notes/n1 [5:19] "auth != null" => true"#))
        let anonymous = try await HearthProcess.run(
            ["rules", "simulate", "r.rules.json", "--op", "read", "--path", "/notes/n1"],
            directory: directory.url
        )
        #expect(anonymous.status == 2)
        #expect(anonymous.stdout.hasPrefix("denied: no rule granted access"), "\(anonymous.stdout)")
    }

    @Test func eachRulePrintsTheValueOfEveryPartAsATree() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.rules.write(to: directory.appending("r.rules.json"), atomically: true, encoding: .utf8)
        let anonymous = try await HearthProcess.run(
            ["rules", "simulate", "r.rules.json", "--op", "read", "--path", "/notes/n1"],
            directory: directory.url
        )
        #expect(anonymous.status == 2)
        let lines = anonymous.stdout.split(separator: "\n").map(String.init)
        let rule = try #require(lines.firstIndex { $0.hasPrefix("  /rules/notes/$id/.read at /notes/n1") })
        #expect(
            Array(lines[(rule + 1)...].prefix(2)) == [
                "      auth != null = false   [5:19]", "        auth = null   [5:19]",
            ]
        )

        let write = try await HearthProcess.run(
            [
                "rules", "simulate", "r.rules.json", "--op", "write", "--path", "/notes/n1", "--auth",
                #"{"uid":"amy"}"#,
                "--value", #"{"owner":"bob","text":"hi"}"#,
            ],
            directory: directory.url
        )
        #expect(write.status == 2, "\(write.stderr)")
        #expect(
            write.stdout.contains("      auth.uid == newData.child('owner').val() = false   [6:20]"),
            "\(write.stdout)"
        )
        #expect(write.stdout.contains(#"        newData.child('owner').val() = "bob"   [6:32]"#), "\(write.stdout)")
        #expect(write.stdout.contains("            newData = snapshot of /notes/n1 after the write   [6:32]"))
    }

    @Test func aWriteRefusedByAValidateShowsItAsJSON() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.rules.write(to: directory.appending("r.rules.json"), atomically: true, encoding: .utf8)
        try #"{"notes":{"n1":{"owner":"amy","text":"hi"}}}"#.write(
            to: directory.appending("data.json"),
            atomically: true,
            encoding: .utf8
        )
        let write = try await HearthProcess.run(
            [
                "rules", "simulate", "r.rules.json", "--data", "data.json", "--op", "update", "--path", "/notes/n1",
                "--auth", #"{"uid":"amy"}"#, "--value", #"{"text":"far too long"}"#, "--json",
            ],
            directory: directory.url
        )
        #expect(write.status == 2, "\(write.stderr)")
        let decision = try #require(
            try JSONSerialization.jsonObject(with: Data(write.stdout.utf8)) as? [String: Any]
        )
        #expect(decision["allowed"] as? Bool == false)
        let decidedBy = try #require(decision["decidedBy"] as? [String: Any])
        #expect(decidedBy["rule"] as? String == "/rules/notes/$id/text/.validate")
        #expect(decidedBy["outcome"] as? Bool == false)
        let trace = try #require(decision["trace"] as? [[String: Any]])
        #expect(trace.contains { $0["rule"] as? String == "/rules/notes/$id/.write" && $0["outcome"] as? Bool == true })
        let bad = try await HearthProcess.run(
            ["rules", "simulate", "r.rules.json", "--op", "delete", "--path", "/notes"],
            directory: directory.url
        )
        #expect(bad.status != 0 && bad.status != 2)
        #expect(bad.stderr.contains(#"'op' must be "read", "write" or "update""#), "\(bad.stderr)")
    }
}
