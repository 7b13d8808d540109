/// Collects the value of each `recorded` sub-expression of the rule being evaluated, for the
/// simulator, within a budget shared by the whole simulation: a rule whose sub-expressions do
/// not all fit is evaluated without recording (its values are left out, and `truncated` says so).
final class RuleValueRecorder {
    /// At most this many sub-expression values per simulation.
    let limit: Int
    private(set) var used = 0
    /// True once a rule's values were left out for the limit.
    private(set) var truncated = false
    private var values: [RuleSpan: RuleValue] = [:]

    init(limit: Int) {
        self.limit = limit
    }

    /// Starts a rule with `count` sub-expressions; false (and `truncated`) when they do not fit.
    func begin(count: Int) -> Bool {
        values.removeAll(keepingCapacity: true)
        guard used + count <= limit else {
            truncated = true
            return false
        }
        used += count
        return true
    }

    /// Called by the evaluator as each sub-expression gets its value. In a rule each part is
    /// evaluated at most once (no loops, no functions), and spans of distinct parts differ.
    func record(_ span: RuleSpan, _ value: RuleValue) {
        values[span] = value
    }

    /// The value of the sub-expression at `span` in the rule just evaluated; nil when it was not
    /// evaluated (short-circuited by `&&`, `||` or `?:`, or after an error stopped its parent).
    func value(at span: RuleSpan) -> RuleValue? {
        values[span]
    }
}
