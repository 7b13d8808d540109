import Testing

@testable import HearthRules

/// Compile-time diagnostics: `file:line:col: message`, the source line, a caret (cel-go style);
/// all errors at once, sorted by position.
struct DiagnosticCase: CustomTestStringConvertible, Sendable {
    let name: String
    let rules: String
    let expected: String
    var testDescription: String { name }
}

struct DiagnosticsTests {
    static let cases: [DiagnosticCase] = [
        DiagnosticCase(
            name: "unknown variable with did-you-mean",
            rules: """
                {
                  "rules": {
                    ".read": "auht != null"
                  }
                }
                """,
            expected: """
                test.rules.json:3:15: unknown variable 'auht'; did you mean 'auth'?
                 |     ".read": "auht != null"
                 | ..............^
                """
        ),
        DiagnosticCase(
            name: "unknown method on a snapshot",
            rules: #"{"rules": {".read": "data.exist()"}}"#,
            expected: """
                test.rules.json:1:27: unknown method 'exist' on a snapshot; did you mean 'exists'?
                 | {"rules": {".read": "data.exist()"}}
                 | ..........................^
                """
        ),
        DiagnosticCase(
            name: "wrong argument count",
            rules: #"{"rules": {".read": "data.child()"}}"#,
            expected: """
                test.rules.json:1:27: 'child' expects 1 argument, got 0
                 | {"rules": {".read": "data.child()"}}
                 | ..........................^
                """
        ),
        DiagnosticCase(
            name: "wildcard out of scope",
            rules: """
                {"rules": {
                  "users": {"$uid": {".read": true}},
                  "other": {".read": "$uid == auth.uid"}
                }}
                """,
            expected: """
                test.rules.json:3:23: wildcard '$uid' is not in scope at this location (no wildcards are in scope here)
                 |   "other": {".read": "$uid == auth.uid"}
                 | ......................^
                """
        ),
        DiagnosticCase(
            name: "non-boolean rule",
            rules: #"{"rules": {".read": "auth.uid"}}"#,
            expected: """
                test.rules.json:1:22: '.read' rule must evaluate to a boolean, got a string
                 | {"rules": {".read": "auth.uid"}}
                 | .....................^
                """
        ),
        DiagnosticCase(
            name: "syntax error at the end",
            rules: #"{"rules": {".read": "auth != "}}"#,
            expected: """
                test.rules.json:1:30: unexpected end of expression; expected a value
                 | {"rules": {".read": "auth != "}}
                 | .............................^
                """
        ),
        DiagnosticCase(
            name: "assignment instead of comparison",
            rules: #"{"rules": {".write": "auth.uid = 'x'"}}"#,
            expected: """
                test.rules.json:1:32: '=' is not an operator in rules; use '==' or '===' to compare
                 | {"rules": {".write": "auth.uid = 'x'"}}
                 | ...............................^
                """
        ),
        DiagnosticCase(
            name: "every error reported, sorted",
            rules: """
                {
                  "rules": {
                    "b": { ".write": "newData.isNumbr()" },
                    "a": { ".read": "dta.exists()", ".valid": "true" }
                  }
                }
                """,
            expected: """
                test.rules.json:3:31: unknown method 'isNumbr' on a snapshot; did you mean 'isNumber'?
                 |     "b": { ".write": "newData.isNumbr()" },
                 | ..............................^
                test.rules.json:4:22: unknown variable 'dta'; did you mean 'data'?
                 |     "a": { ".read": "dta.exists()", ".valid": "true" }
                 | .....................^
                test.rules.json:4:37: unknown rule '.valid'; did you mean '.validate'?
                 |     "a": { ".read": "dta.exists()", ".valid": "true" }
                 | ....................................^
                """
        ),
        DiagnosticCase(
            name: "JSON escapes keep columns in the file",
            rules: #"{"rules": {".read": "\"a\" == bogus"}}"#,
            expected: """
                test.rules.json:1:31: unknown variable 'bogus'
                 | {"rules": {".read": "\\"a\\" == bogus"}}
                 | ..............................^
                """
        ),
        DiagnosticCase(
            name: "newData in a read rule",
            rules: #"{"rules": {".read": "newData.exists()"}}"#,
            expected: """
                test.rules.json:1:22: 'newData' is not available in '.read' rules; use 'data' for the current value
                 | {"rules": {".read": "newData.exists()"}}
                 | .....................^
                """
        ),
        DiagnosticCase(
            name: "string plus boolean",
            rules: #"{"rules": {".read": "'a' + true == 'atrue'"}}"#,
            expected: """
                test.rules.json:1:26: operator '+' cannot be applied to a string and a boolean
                 | {"rules": {".read": "'a' + true == 'atrue'"}}
                 | .........................^
                """
        ),
        DiagnosticCase(
            name: "rule value of the wrong type",
            rules: #"{"rules": {".read": 1}}"#,
            expected: """
                test.rules.json:1:21: '.read' must be a string expression or a boolean, got a number
                 | {"rules": {".read": 1}}
                 | ....................^
                """
        ),
        DiagnosticCase(
            name: "two wildcards at one level",
            rules: #"{"rules": {"$a": {}, "$b": {}}}"#,
            expected: """
                test.rules.json:1:22: two wildcards at the same level: '$a' and '$b'; only one '$' child is allowed per location
                 | {"rules": {"$a": {}, "$b": {}}}
                 | .....................^
                """
        ),
        DiagnosticCase(
            name: "bad regular expression",
            rules: #"{"rules": {".write": "newData.val().matches(/a^b/)"}}"#,
            expected: """
                test.rules.json:1:47: invalid regular expression: '^' can only be the first character of the pattern
                 | {"rules": {".write": "newData.val().matches(/a^b/)"}}
                 | ..............................................^
                """
        ),
        DiagnosticCase(
            name: "unsupported regex flag",
            rules: #"{"rules": {".write": "newData.val().matches(/a/g)"}}"#,
            expected: """
                test.rules.json:1:48: unsupported regular expression flag 'g'; only 'i' is supported
                 | {"rules": {".write": "newData.val().matches(/a/g)"}}
                 | ...............................................^
                """
        ),
        DiagnosticCase(
            name: "malformed JSON",
            rules: "{\n  \"rules\": {\n    \".read\": true,\n  }\n}",
            expected: """
                test.rules.json:4:3: unexpected '}'; expected a key in double quotes
                 |   }
                 | ..^
                """
        ),
        DiagnosticCase(
            name: "missing rules",
            rules: #"{"rulez": {}}"#,
            expected: """
                test.rules.json:1:1: missing 'rules': the document must be {"rules": {...}}
                 | {"rulez": {}}
                 | ^
                test.rules.json:1:2: unknown key 'rulez' at the top level; only 'rules' is allowed
                 | {"rulez": {}}
                 | .^
                """
        ),
        DiagnosticCase(
            name: "unknown query property",
            rules: #"{"rules": {".read": "query.orderBy == 'x'"}}"#,
            expected: """
                test.rules.json:1:28: unknown property 'orderBy' on query; did you mean 'orderByKey'?
                 | {"rules": {".read": "query.orderBy == 'x'"}}
                 | ...........................^
                """
        ),
        DiagnosticCase(
            name: "method used as a property",
            rules: #"{"rules": {".read": "data.exists"}}"#,
            expected: """
                test.rules.json:1:27: 'exists' is a method; call it as 'exists()'
                 | {"rules": {".read": "data.exists"}}
                 | ..........................^
                """
        ),
        DiagnosticCase(
            name: "comparing a snapshot",
            rules: #"{"rules": {".read": "data == null"}}"#,
            expected: """
                test.rules.json:1:27: a snapshot cannot be compared; use 'val()' for its value or 'exists()' for its presence
                 | {"rules": {".read": "data == null"}}
                 | ..........................^
                """
        ),
        DiagnosticCase(
            name: "invalid .indexOn",
            rules: #"{"rules": {"a": {".indexOn": 3}}}"#,
            expected: """
                test.rules.json:1:30: '.indexOn' must be a string or an array of strings, got a number
                 | {"rules": {"a": {".indexOn": 3}}}
                 | .............................^
                """
        ),
        DiagnosticCase(
            name: "location must be an object",
            rules: #"{"rules": {"a": true}}"#,
            expected: """
                test.rules.json:1:17: rules for 'a' must be an object, got true
                 | {"rules": {"a": true}}
                 | ................^
                """
        ),
        DiagnosticCase(
            name: "unterminated string in an expression",
            rules: #"{"rules": {".read": "auth.uid == 'x"}}"#,
            expected: """
                test.rules.json:1:34: unterminated string literal
                 | {"rules": {".read": "auth.uid == 'x"}}
                 | .................................^
                """
        ),
        DiagnosticCase(
            name: "query outside read",
            rules: #"{"rules": {".write": "query.limitToFirst < 5"}}"#,
            expected: """
                test.rules.json:1:23: 'query' is not available in '.write' rules; it describes the query of a read
                 | {"rules": {".write": "query.limitToFirst < 5"}}
                 | ......................^
                """
        ),
        DiagnosticCase(
            name: "not on a number",
            rules: #"{"rules": {".read": "!now"}}"#,
            expected: """
                test.rules.json:1:22: operator '!' cannot be applied to a number
                 | {"rules": {".read": "!now"}}
                 | .....................^
                """
        ),
        DiagnosticCase(
            name: "string method on a snapshot",
            rules: #"{"rules": {".write": "newData.contains('x')"}}"#,
            expected: """
                test.rules.json:1:31: unknown method 'contains' on a snapshot
                 | {"rules": {".write": "newData.contains('x')"}}
                 | ..............................^
                """
        ),
        DiagnosticCase(
            name: "invalid key",
            rules: #"{"rules": {"a#b": {}}}"#,
            expected: """
                test.rules.json:1:12: invalid key 'a#b': keys cannot be empty or contain '.', '#', '$', '[', ']', '/' or control characters
                 | {"rules": {"a#b": {}}}
                 | ...........^
                """
        ),
        DiagnosticCase(
            name: "matches needs a regular expression literal",
            rules: #"{"rules": {".write": "newData.val().matches('a')"}}"#,
            expected: """
                test.rules.json:1:45: argument 1 of 'matches' must be a regular expression literal such as /^[a-z]+$/, got a string
                 | {"rules": {".write": "newData.val().matches('a')"}}
                 | ............................................^
                """
        ),
    ]

    @Test(arguments: cases)
    func diagnostic(_ testCase: DiagnosticCase) {
        #expect(diagnostics(testCase.rules) == testCase.expected)
    }

    @Test func summaryNamesLineAndColumn() {
        guard
            case .failure(let d) = RulesDocument.compile(
                source: #"{"rules": {".read": "x", ".write": "y"}}"#,
                fileName: "r.json"
            )
        else {
            Issue.record("expected failure")
            return
        }
        #expect(d.summary == "r.json:1:22: unknown variable 'x' (and 1 more)")
        #expect(
            d.diagnostics.map(\.position) == [SourcePosition(line: 1, column: 22), SourcePosition(line: 1, column: 37)]
        )
    }

    @Test func commentsAreAccepted() {
        let rules = """
            /* leading */ {
              // line comment
              "rules": { /* inline */ ".read": "auth != null" // trailing
              }
            }
            """
        #expect(compile(rules) != nil)
    }

    @Test func indexOnEntriesAreExposed() {
        let program = compile(
            #"{"rules": {"users": {".indexOn": ["email", "a/b"]}, "m": {"$c": {".indexOn": ".value"}}}}"#
        )
        #expect(program?.indexes.map(\.description) == ["/users email", "/users a/b", "/m/$c .value"])
    }
}
