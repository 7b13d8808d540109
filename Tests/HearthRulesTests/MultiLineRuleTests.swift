import HearthCore
import Testing

@testable import HearthRules

/// A rule expression broken across lines of the rules file, as Firebase's own examples write
/// them (rules-conditions: "query.orderByChild == 'owner' &&\n query.equalTo == auth.uid"):
/// Firebase's rules parser takes the line breaks inside the string as they are.
struct MultiLineRuleTests {
    static let rooms = """
        {
          "rules": {
            "rooms": {
              "$room": {
                ".read": "auth != null &&
                          root.child('members/' + $room + '/' + auth.uid).exists()",
                ".write": "auth != null &&
                           newData.child('owner').val() == auth.uid &&
                           !data.exists()"
              }
            }
          }
        }
        """

    static let data = #"{"members": {"r1": {"alice": true}}, "rooms": {"r2": {"owner": "bob"}}}"#

    @Test(arguments: [("alice", true), ("bob", false)])
    func multiLineReadRuleDecides(_ uid: String, _ allowed: Bool) throws {
        let program = try #require(compile(Self.rooms))
        let decision = program.canRead(
            path: path("/rooms/r1"),
            auth: auth(uid),
            root: RuleMemorySource(root: tree(Self.data)),
            now: 1
        )
        #expect(decision.allowed == allowed)
    }

    @Test(arguments: [("/rooms/r3", "alice", true), ("/rooms/r3", "bob", false), ("/rooms/r2", "bob", false)])
    func multiLineWriteRuleDecides(_ location: String, _ uid: String, _ allowed: Bool) throws {
        let program = try #require(compile(Self.rooms))
        let current = RuleMemorySource(root: tree(Self.data))
        let written = try TreeParser.parse(#"{"owner": "alice"}"#, at: path(location)).node
        let decision = program.canWrite(
            path: path(location),
            auth: auth(uid),
            root: current,
            newRoot: RuleOverlaySource(base: current, writes: [(path(location), written)]),
            now: 1,
            changedPaths: [path(location)]
        )
        #expect(decision.allowed == allowed)
    }

    @Test func crlfAndTabsInsideARuleAreAccepted() throws {
        let text = "{\r\n  \"rules\": {\r\n    \".read\": \"auth != null &&\r\n\tauth.uid == 'alice'\"\r\n  }\r\n}\r\n"
        let program = try #require(compile(text))
        #expect(
            program.canRead(path: path("/x"), auth: auth("alice"), root: RuleMemorySource(root: nil), now: 1).allowed
        )
        #expect(
            !program.canRead(path: path("/x"), auth: auth("bob"), root: RuleMemorySource(root: nil), now: 1).allowed
        )
    }

    @Test func aTestFileHoldsMultiLineRulesInline() throws {
        let file = """
            {
              // rules pasted inline, as in a rules file
              "rules": {"rules": {"$room": {".read": "auth != null &&
                                                  $room == 'r' + 1"}}},
              "cases": [
                {"name": "r1", "op": "read", "path": "/r1", "auth": {"uid": "a"}, "expected": "allow"},
                {"name": "r2", "op": "read", "path": "/r2", "auth": {"uid": "a"}, "expected": "deny"}
              ]
            }
            """
        let report = try #require(runFixture(file))
        #expect(report.summary == "2 passed, 0 failed", "\(report)")
    }

    @Test func aMalformedTestFileNamesLineAndColumn() {
        let runner = RuleTestRunner(readFile: { _ in "" })
        #expect(throws: RuleTestRunner.Failure.self) {
            try runner.run(testFile: "{\n  \"cases\": [,]\n}", fileName: "t.json")
        }
        do {
            _ = try runner.run(testFile: "{\n  \"cases\": [,]\n}", fileName: "t.json")
        } catch {
            #expect(error.message == "invalid rules test file: t.json:2:13: unexpected ','; expected a JSON value")
        }
    }

    static let cases: [DiagnosticCase] = [
        DiagnosticCase(
            name: "an error on the second line of a rule",
            rules: """
                {
                  "rules": {
                    ".read": "auth != null &&
                              auht.uid == 'x'"
                  }
                }
                """,
            expected: """
                test.rules.json:4:15: unknown variable 'auht'; did you mean 'auth'?
                 |               auht.uid == 'x'"
                 | ..............^
                """
        ),
        DiagnosticCase(
            name: "an error on the second line of a rule with CRLF line ends",
            rules: "{\r\n  \"rules\": {\r\n    \".read\": \"auth != null &&\r\n      auht.uid == 'x'\"\r\n  }\r\n}",
            expected: """
                test.rules.json:4:7: unknown variable 'auht'; did you mean 'auth'?
                 |       auht.uid == 'x'"
                 | ......^
                """
        ),
        DiagnosticCase(
            name: "the end of a rule that ends on a later line",
            rules: """
                {"rules": {".read": "auth != null &&
                    "}}
                """,
            expected: """
                test.rules.json:2:5: unexpected end of expression; expected a value
                 |     "}}
                 | ....^
                """
        ),
        DiagnosticCase(
            name: "errors on several lines of one rule, sorted",
            rules: """
                {"rules": {".write": "newData.isNumbr() ||
                  !newData.child('locked').val() ||
                  dta.exists()"}}
                """,
            expected: """
                test.rules.json:1:31: unknown method 'isNumbr' on a snapshot; did you mean 'isNumber'?
                 | {"rules": {".write": "newData.isNumbr() ||
                 | ..............................^
                test.rules.json:2:4: operand of '!' must be a boolean, got a value that may not be one; compare it, e.g. '... == true'
                 |   !newData.child('locked').val() ||
                 | ...^
                test.rules.json:3:3: unknown variable 'dta'; did you mean 'data'?
                 |   dta.exists()"}}
                 | ..^
                """
        ),
        DiagnosticCase(
            name: "other control characters in a string must still be escaped",
            rules: "{\"rules\": {\".read\": \"true\u{1}\"}}",
            expected:
                "test.rules.json:1:26: control character in a string; escape it\n | {\"rules\": {\".read\": \"true\u{1}\"}}\n | "
                + String(repeating: ".", count: 25) + "^"
        ),
        DiagnosticCase(
            name: "a string that never ends is reported where it starts",
            rules: "{\"rules\": {\".read\": \"auth != null &&\n  true}}\n",
            expected: """
                test.rules.json:1:21: unterminated string
                 | {"rules": {".read": "auth != null &&
                 | ....................^
                """
        ),
    ]

    @Test(arguments: cases)
    func diagnostic(_ testCase: DiagnosticCase) {
        #expect(diagnostics(testCase.rules) == testCase.expected)
    }
}
