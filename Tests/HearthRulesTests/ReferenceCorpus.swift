import Testing

/// Hearth's own rules corpus: every rules-language feature that Firebase's reference lists, each
/// with table cases that cite where the behaviour is documented or was observed.
///
/// Sources, as cited in the `source` of each case:
/// - `reference`: firebase.google.com/docs/reference/security/database (rule types, variables,
///   RuleDataSnapshot methods, string properties and methods, operators).
/// - `regex`: firebase.google.com/docs/reference/security/database/regex.
/// - `conditions`: firebase.google.com/docs/database/security/rules-conditions (`$` variables,
///   `auth`, existing and new data, query-based rules).
/// - `core-syntax`: firebase.google.com/docs/database/security/core-syntax (cascade, rules are
///   not filters, `.validate`, `$other`).
/// - `observed`: targaryen's test/spec/lib/parser/fixtures.json, which records for each rule
///   whether a live Firebase database accepted it at deploy, and what it evaluated to or whether
///   it failed at run time (goldibex/targaryen, lib/parser/specs.js).
/// - `firebase-tools#944`: the deploy error for `query.orderByChild == 'members/' + auth.uid`.
/// - `targaryen#64`: rules Firebase cannot publish (logical operators need booleans).
enum FirebaseReference {
    /// Every feature the reference pages list, by section. `ReferenceCorpusTests` checks that
    /// each one has at least one case.
    static let sections: [(name: String, features: [String])] = [
        ("rule types", [".read", ".write", ".validate", ".indexOn"]),
        ("variables", ["auth", "$location", "now", "root", "data", "newData", "query"]),
        (
            "query expressions",
            [
                "query.orderByKey", "query.orderByPriority", "query.orderByValue", "query.orderByChild",
                "query.startAt", "query.endAt", "query.equalTo", "query.limitToFirst", "query.limitToLast",
            ]
        ),
        (
            "RuleDataSnapshot methods",
            [
                "val()", "child()", "parent()", "hasChild()", "hasChildren()", "exists()", "getPriority()",
                "isNumber()", "isString()", "isBoolean()",
            ]
        ),
        ("string properties", ["length"]),
        (
            "string methods",
            ["contains()", "beginsWith()", "endsWith()", "replace()", "toLowerCase()", "toUpperCase()", "matches()"]
        ),
        (
            "operators",
            ["+", "-", "*", "/", "%", "!", "&&", "||", "==", "===", "!=", "!==", "<", "<=", ">", ">=", "?:"]
        ),
        (
            "regular expressions",
            [
                "regex literal", "regex ^", "regex $", "regex .", "regex *", "regex +", "regex ?", "regex {n}",
                "regex {n,}", "regex {n,m}", "regex |", "regex ( )", "regex [abc]", "regex [a-z]", "regex [^...]",
                "regex \\d", "regex \\D", "regex \\w", "regex \\W", "regex \\s", "regex \\S", "regex \\ escape",
                "regex flag i",
            ]
        ),
        ("rule semantics", ["read/write cascade", "rules are not filters", ".validate does not cascade", "$other"]),
    ]

    static var features: [String] { sections.flatMap(\.features) }
}

/// One expression, evaluated as the `.read` rule (or with `write`, the `.write` rule) of
/// `/items/$id` for `/items/a`, over `expressionData` (ExpressionTests.swift), signed in as
/// alice with `expressionToken` unless `signedIn` is false; `now` is 1000.
struct CorpusCase: CustomTestStringConvertible, Sendable {
    enum Expected: Sendable, Equatable {
        /// The rule is true.
        case allow
        /// The rule is false.
        case deny
        /// Evaluating the rule fails (which denies).
        case error
        /// The document is refused at load with a diagnostic containing this text.
        case refused(String)
    }

    let feature: String
    let rule: String
    let expected: Expected
    let source: String
    var signedIn = true
    /// For a `.write` rule: the JSON written at `/items/a`.
    var write: String?
    /// For a `.read` rule: the query, in the format of `hearth rules test` files.
    var query: String?

    var testDescription: String { "\(feature): \(rule) → \(expected)" }
}

extension CorpusCase {
    init(
        _ feature: String,
        _ rule: String,
        _ expected: Expected,
        _ source: String,
        signedIn: Bool = true,
        write: String? = nil,
        query: String? = nil
    ) {
        self.init(
            feature: feature,
            rule: rule,
            expected: expected,
            source: source,
            signedIn: signedIn,
            write: write,
            query: query
        )
    }
}
