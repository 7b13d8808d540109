/// A decision a rules test case checks: the database rules' (`RuleDecision`) or the storage
/// rules' (`StorageRuleDecision`), shown whole when a case fails.
public protocol RuleTestDecision: Sendable, CustomStringConvertible {
    var allowed: Bool { get }
}

extension RuleDecision: RuleTestDecision {}
extension StorageRuleDecision: RuleTestDecision {}

/// The result of one test case of either rules language.
public struct RuleTestCaseResult<Decision: RuleTestDecision>: Sendable, CustomStringConvertible {
    public let name: String
    public let expectedAllow: Bool
    public let decision: Decision
    public var passed: Bool { decision.allowed == expectedAllow }

    public init(name: String, expectedAllow: Bool, decision: Decision) {
        self.name = name
        self.expectedAllow = expectedAllow
        self.decision = decision
    }

    public var description: String {
        let expected = expectedAllow ? "allow" : "deny"
        let actual = decision.allowed ? "allow" : "deny"
        return passed ? "PASS \(name)" : "FAIL \(name): expected \(expected), got \(actual)\n\(decision)"
    }
}

/// Every case's result of a rules test file, in file order.
public struct RuleTestReport<Decision: RuleTestDecision>: Sendable, CustomStringConvertible {
    public let results: [RuleTestCaseResult<Decision>]
    public var passed: Int { results.filter(\.passed).count }
    public var failed: Int { results.count - passed }
    /// `N passed, N failed`
    public var summary: String { "\(passed) passed, \(failed) failed" }

    public init(results: [RuleTestCaseResult<Decision>]) {
        self.results = results
    }

    public var description: String {
        (results.map(\.description) + [summary]).joined(separator: "\n")
    }
}
