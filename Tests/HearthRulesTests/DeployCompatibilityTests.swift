import Testing

@testable import HearthRules

/// What Firebase accepts at deploy loads, and what it refuses at deploy is refused at load, with
/// `file:line:col` (Hearth issue 13; sources as in ReferenceCorpus.swift).
struct DeployCompatibilityTests {
    /// Rules that deploy to Firebase and were refused before: every one now loads.
    static let accepted: [String] = [
        "'v' + 2 == 'v2'",  // reference: `+` concatenates
        "1 + 2 + 'x' == '3x'",
        "root.child('slots').child($slot + 1).exists()",  // a wildcard plus a number
        "auth.uid != 'mallory'",
        "auth.token.missing.deeper == null",
        "auth.someInt < 5",  // observed: any property of auth deploys
        "root.child('banned/bob@example.com').val() != true",  // observed: a key no data can have
        "root.hasChildren(['a.b', 'c'])",
        "root['exists']() == true",  // observed
        "auth.token.email['contains']('@') == true",  // observed
        "(1/0 + '') == 'NaN'",  // observed
        "query.orderByChild == 'owner' && query.equalTo == auth.uid",  // conditions: equalTo may be computed
        "query.orderByChild == null || query.orderByChild == query.orderByChild",
    ]

    @Test(arguments: accepted)
    func loads(_ rule: String) {
        #expect(compile(#"{"rules": {"slots": {"$slot": {".read": \#(jsonString(rule))}}}}"#) != nil)
    }

    /// Rules Firebase refuses at deploy, each refused at load with its position.
    static let refused: [DiagnosticCase] = [
        DiagnosticCase(
            name: "'!' on a value that may not be a boolean",
            rules: #"{"rules": {".write": "!data.child('locked').val()"}}"#,
            expected: """
                test.rules.json:1:24: operand of '!' must be a boolean, got a value that may not be one; compare it, e.g. '... == true'
                 | {"rules": {".write": "!data.child('locked').val()"}}
                 | .......................^
                """
        ),
        DiagnosticCase(
            name: "a rule that is not a boolean on every branch",
            rules: #"{"rules": {".read": "auth != null ? 'yes' : false"}}"#,
            expected: """
                test.rules.json:1:37: '.read' rule must evaluate to a boolean on every branch, got a string
                 | {"rules": {".read": "auth != null ? 'yes' : false"}}
                 | ....................................^
                """
        ),
        DiagnosticCase(
            name: "a rule that may not be a boolean",
            rules: #"{"rules": {".read": "data.child('open').val()"}}"#,
            expected: """
                test.rules.json:1:22: '.read' rule must evaluate to a boolean, got a value that may not be one; compare it, e.g. '... == true'
                 | {"rules": {".read": "data.child('open').val()"}}
                 | .....................^
                """
        ),
        DiagnosticCase(
            name: "query.orderByChild compared with a computed path",
            rules: #"{"rules": {".read": "query.orderByChild == 'members/' + auth.uid"}}"#,
            expected: """
                test.rules.json:1:44: 'query.orderByChild' can only be compared with a string literal or null (Firebase refuses a computed path)
                 | {"rules": {".read": "query.orderByChild == 'members/' + auth.uid"}}
                 | ...........................................^
                """
        ),
        DiagnosticCase(
            name: "a logical operator on a value that may not be a boolean",
            rules: #"{"rules": {".read": "auth.token.admin || false"}}"#,
            expected: """
                test.rules.json:1:22: operand of '||' must be a boolean, got a value that may not be one; compare it, e.g. '... == true'
                 | {"rules": {".read": "auth.token.admin || false"}}
                 | .....................^
                """
        ),
        DiagnosticCase(
            name: "'+' with null",
            rules: #"{"rules": {".read": "'users/' + null == 'users/'"}}"#,
            expected: """
                test.rules.json:1:31: operator '+' cannot be applied to a string and null
                 | {"rules": {".read": "'users/' + null == 'users/'"}}
                 | ..............................^
                """
        ),
    ]

    @Test(arguments: refused)
    func refusedAtLoad(_ testCase: DiagnosticCase) {
        #expect(diagnostics(testCase.rules) == testCase.expected)
    }

    /// ECMAScript Number::toString, for `+` with a string.
    static let numbers: [(Double, String)] = [
        (0, "0"), (-0.0, "0"), (2, "2"), (-3, "-3"), (0.5, "0.5"), (123.456, "123.456"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1e20, "100000000000000000000"), (1e21, "1e+21"), (1.5e300, "1.5e+300"), (0.000001, "0.000001"),
        (1e-7, "1e-7"), (1.25e-7, "1.25e-7"), (123456789012, "123456789012"), (.leastNonzeroMagnitude, "5e-324"),
        (.nan, "NaN"), (.infinity, "Infinity"), (-.infinity, "-Infinity"),
    ]

    @Test(arguments: numbers)
    func javaScriptNumberStrings(_ number: Double, _ text: String) {
        #expect(JavaScriptNumber.string(number) == text)
    }
}
