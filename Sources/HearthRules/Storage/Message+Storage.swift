// The storage rules compiler's messages (the database rules' are in Diagnostics.swift): one
// sentence each, the offending text in single quotes, saying what to write instead.

extension Message {
    // MARK: Syntax

    static func storageVersion(_ found: String) -> String {
        "rules_version must be '1' or '2', got '\(found)'; write rules_version = '2';"
    }
    static func storageNoService() -> String {
        "the file declares no service; wrap the rules in 'service firebase.storage { ... }'"
    }
    static func storageService(_ name: String) -> String {
        "'service \(name)' is not Cloud Storage; storage rules declare 'service firebase.storage'"
    }
    static func storageExpected(_ expected: String, found: String) -> String {
        "expected \(expected), found \(found)"
    }
    static func storageUnclosed(_ block: String) -> String { "the '\(block)' block is not closed; add '}'" }
    static func storageTrailing() -> String { "unexpected text after the service block" }
    static func storageUnexpectedEnd() -> String { "unexpected end of the file" }
    static func storageRecursiveWildcard() -> String {
        "a wildcard takes '=**' to match the rest of the path ('{name=**}'), nothing else"
    }
    static func storageEmptySegment() -> String { "empty path segment; segments are separated by one '/'" }
    static func storageUnknownMethod(_ name: String, suggestion: String?) -> String {
        let known = "read, write, get, list, create, update or delete"
        return suggestion.map { "unknown method '\(name)'; did you mean '\($0)'?" }
            ?? "unknown method '\(name)'; use \(known)"
    }
    static func storageUnknownType(_ name: String, suggestion: String?) -> String {
        suggestion.map { "unknown type '\(name)'; did you mean '\($0)'?" } ?? "unknown type '\(name)'"
    }
    static func storageIntegerRange(_ text: String) -> String {
        "integer '\(text)' is out of the 64-bit range; write it as a float"
    }

    // MARK: Names

    static func storageUnknownVariable(_ name: String, suggestion: String?) -> String {
        suggestion.map { "unknown variable '\(name)'; did you mean '\($0)'?" } ?? "unknown variable '\(name)'"
    }
    static func storageUnknownFunction(_ name: String, suggestion: String?) -> String {
        suggestion.map { "unknown function '\(name)'; did you mean '\($0)'?" } ?? "unknown function '\(name)'"
    }
    static func storageArity(_ name: String, expected: Int, found: Int) -> String {
        "function '\(name)' takes \(expected) argument\(expected == 1 ? "" : "s"), not \(found)"
    }
    static func storageDuplicateFunction(_ name: String) -> String {
        "function '\(name)' is already declared in this scope"
    }
    static func storageDuplicateName(_ name: String) -> String {
        "'\(name)' is already declared here; choose another name"
    }
    static func storageRecursion(_ name: String) -> String {
        "function '\(name)' calls itself (directly or through others); recursion is not allowed"
    }
    static func storageTwoRecursiveWildcards() -> String {
        "a match path has at most one recursive wildcard ('{name=**}') counting the enclosing matches"
    }
    static func storageRecursiveNotLast() -> String {
        "with rules_version '1' a recursive wildcard must be the last segment; use rules_version = '2'"
    }
    static func storageBadRegex(_ detail: String) -> String { "invalid regular expression: \(detail)" }
    static func storageTooManyLets(_ limit: Int) -> String { "a function has at most \(limit) 'let' bindings" }
}

extension Message {
    static func storageUnknownMethodCall(_ name: String, suggestion: String?) -> String {
        suggestion.map { "unknown method '\(name)'; did you mean '\($0)'?" } ?? "unknown method '\(name)'"
    }
    static func storageMethodArity(_ name: String, _ range: ClosedRange<Int>, found: Int) -> String {
        let count =
            range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
        return "'\(name)' takes \(count) argument\(range.upperBound == 1 ? "" : "s"), not \(found)"
    }
    static func storageFirestoreFunction(_ name: String) -> String {
        "'\(name)()' reads Firestore, which Hearth does not have; read the database with 'database.\(name == "exists" || name == "existsAfter" ? "exists" : "get")(/path/$(var))'"
    }
    static func storageNotCallable(_ text: String) -> String { "'\(text)' is not a function" }
}
