import Foundation
import Testing

@testable import HearthRules

/// Firebase's regular expression subset (firebase.google.com/docs/reference/security/database/regex).
struct RegexCase: CustomTestStringConvertible, Sendable {
    let pattern: String
    let ignoreCase: Bool
    let input: String
    let matches: Bool
    var testDescription: String { "/\(pattern)/\(ignoreCase ? "i" : "") ~ '\(input)' → \(matches)" }

    init(_ pattern: String, _ input: String, _ matches: Bool, i ignoreCase: Bool = false) {
        self.pattern = pattern
        self.input = input
        self.matches = matches
        self.ignoreCase = ignoreCase
    }
}

struct RegexTests {
    static let cases: [RegexCase] = [
        // The documentation's own examples
        RegexCase("a", "ba", true),
        RegexCase("^a", "ba", false),
        RegexCase("a", "ab", true),
        RegexCase("a$", "ab", false),
        RegexCase("^a*$", "", true),
        RegexCase("^a*$", "aaa", true),
        RegexCase("^a*$", "b", false),
        RegexCase("^a+$", "a", true),
        RegexCase("^a+$", "aaa", true),
        RegexCase("^a+$", "", false),
        RegexCase("^a?$", "", true),
        RegexCase("^a?$", "a", true),
        RegexCase("^a?$", "aa", false),
        RegexCase("........", "Firebase", true),
        RegexCase("(ab)*", "abab", true),
        RegexCase("^(ab)*$", "aba", false),
        RegexCase("a|bc", "ac", true),
        RegexCase("a|bc", "bc", true),
        RegexCase("^(a|bc)$", "b", false),
        RegexCase("[ABCDEF]", "xBx", true),
        RegexCase("^[ABCDEF]$", "G", false),
        RegexCase("^[0-9A-F]+$", "DEADBEEF", true),
        RegexCase("^[0-9A-F]+$", "DEADBEEG", false),
        RegexCase("^[^0-9]+$", "abc", true),
        RegexCase("^[^0-9]+$", "ab1", false),
        RegexCase("^yes$", "YES", true, i: true),
        RegexCase("^yes$", "YES", false),
        RegexCase("^[a-z]+$", "ABC", true, i: true),
        // Predefined classes and escapes
        RegexCase("^\\d+$", "0123", true),
        RegexCase("^\\d+$", "12a", false),
        RegexCase("^\\D+$", "abc", true),
        RegexCase("^\\w+$", "a_Z9", true),
        RegexCase("^\\w+$", "a-b", false),
        RegexCase("^\\W$", "-", true),
        RegexCase("^a\\sb$", "a b", true),
        RegexCase("^a\\sb$", "a\tb", true),
        RegexCase("^\\S+$", "a b", false),
        RegexCase("^a\\.b$", "a.b", true),
        RegexCase("^a\\.b$", "axb", false),
        RegexCase("^\\$\\d+$", "$10", true),
        RegexCase("\\$", "cost$", true),
        RegexCase("^\\\\$", "\\", true),
        RegexCase("^\\/$", "/", true),
        RegexCase("^[\\d-]+$", "1-2", true),
        RegexCase("^[a\\]]+$", "a]a", true),
        // Quantifier braces
        RegexCase("^a{2}$", "aa", true),
        RegexCase("^a{2}$", "aaa", false),
        RegexCase("^a{2,}$", "aaaa", true),
        RegexCase("^a{2,3}$", "a", false),
        RegexCase("^a{2,3}$", "aaa", true),
        RegexCase("^[A-Z]{2,4}$", "ABCDE", false),
        // Backtracking
        RegexCase("^(a|ab)c$", "abc", true),
        RegexCase("^a*ab$", "aaab", true),
        RegexCase("^(a*)*b$", "aaab", true),
        RegexCase("^.*@.*\\..*$", "x@y.z", true),
        RegexCase("^\\+[1-9]\\d{1,14}$", "+4915123456789", true),
        RegexCase("^\\+[1-9]\\d{1,14}$", "+0123", false),
        // `.` is any character but a line break
        RegexCase("^.$", "é", true),
        RegexCase("^.$", "\n", false),
    ]

    @Test(arguments: cases)
    func match(_ testCase: RegexCase) throws {
        let regex = try RuleRegex(pattern: testCase.pattern, ignoreCase: testCase.ignoreCase)
        #expect(regex.matches(testCase.input) == testCase.matches)
    }

    static let invalid: [(String, String)] = [
        ("a^", "'^' can only be the first character of the pattern"),
        ("a$b", "'$' can only be the last character of the pattern"),
        ("(ab", "unmatched '('"),
        ("ab)", "unmatched ')'"),
        ("[ab", "unmatched '['"),
        ("*a", "nothing to repeat before '*'"),
        ("a**", "nothing to repeat before '*'"),
        ("a{x}", "'{' must start a quantifier such as {2} or {1,3}; escape it as '\\{'"),
        ("(?:a)", "'(?' groups are not supported"),
        ("[z-a]", "range out of order in a character class"),
        // Observed: Firebase refuses `/^(foo|)$/` at deploy (targaryen's fixtures, ReferenceCorpus.swift).
        ("^(foo|)$", "empty alternative after '|'"),
        ("(|a)", "empty alternative before '|'"),
        ("a||b", "empty alternative after '|'"),
    ]

    @Test(arguments: invalid)
    func invalidPattern(_ pattern: String, _ detail: String) {
        do {
            _ = try RuleRegex(pattern: pattern, ignoreCase: false)
            Issue.record("'\(pattern)' compiled")
        } catch {
            #expect(error.detail == detail)
        }
    }

    /// Catastrophic backtracking ends in the step budget (200,000 steps): the match is an
    /// error (nil), which fails the rule, within milliseconds.
    @Test(arguments: [
        ("(a+)+$", String(repeating: "a", count: 40) + "b"),
        ("^(a|a)*(a|a)*(a|a)*b$", String(repeating: "a", count: 400)),
        ("^(a|aa)+$", String(repeating: "a", count: 5_000) + "b"),
        ("(x+x+)+y", String(repeating: "x", count: 50)),
    ])
    func catastrophicPatternsRunOutOfTheirBudget(_ pattern: String, _ input: String) throws {
        let regex = try RuleRegex(pattern: pattern, ignoreCase: false)
        let started = ContinuousClock.now
        #expect(regex.matches(input) == nil)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    /// Long inputs never recurse deeper than `RuleRegex.maxDepth`: a repeated character loops,
    /// a repeated group past the depth is an error. Run on a 2 MiB stack: in a debug build the
    /// deepest match needs about 1.5 MiB (less optimized), and the server's threads get 8 MiB
    /// (`ulimit -s`). Before the bound, 150,000 `a` against `^[a-z]*$` recursed once per
    /// character, overflowed any thread's stack and crashed the server.
    @Test func longInputsStayWithinTheStack() throws {
        final class Outcome: @unchecked Sendable {
            /// Written by the thread before it signals `done`, read after.
            var results: [Bool?] = []
            let done = DispatchSemaphore(value: 0)
        }
        let outcome = Outcome()
        let thread = Thread {
            func run(_ pattern: String, _ input: String) -> Bool? {
                try! RuleRegex(pattern: pattern, ignoreCase: false).matches(input)
            }
            outcome.results = [
                run("^[a-z]*$", String(repeating: "a", count: 150_000)),
                run("^(\\w|\\s)+$", String(repeating: "a b ", count: 40_000)),
                run("^(ab)*$", String(repeating: "ab", count: 300)),
                run("^(ab)*$", String(repeating: "ab", count: 50_000)),
                run("^(a+b)+$", String(repeating: "aab", count: 50_000)),
            ]
            outcome.done.signal()
        }
        thread.stackSize = 2 << 20
        thread.start()
        #expect(outcome.done.wait(timeout: .now() + 60) == .success)
        #expect(outcome.results == [true, true, true, nil, nil])
    }

    @Test func groupsNestedTooDeeplyAreASyntaxError() {
        let deep = String(repeating: "(", count: 65) + "a" + String(repeating: ")", count: 65)
        #expect(throws: (any Error).self) { try RuleRegex(pattern: deep, ignoreCase: false) }
        let fine = String(repeating: "(", count: 64) + "a" + String(repeating: ")", count: 64)
        #expect((try? RuleRegex(pattern: fine, ignoreCase: false))?.matches("a") == true)
    }
}
