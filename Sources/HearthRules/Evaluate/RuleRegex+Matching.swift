/// Matching: a backtracking matcher bounded in steps and in depth, so a pathological pattern
/// or a long input fails the rule instead of hanging the server or overflowing its stack.
extension RuleRegex {
    /// The most backtracking steps one match may take before it counts as an error.
    static let stepBudget = 200_000
    /// The deepest recursion of one match, in nested `match` calls, before it counts as an
    /// error: a repeated group recurses a few levels per repetition (a repeated single
    /// character, such as `[a-z]*` or `(\w|\s)+`, loops instead), and the thread's stack must
    /// hold it (in a debug build the deepest takes about 1.5 MiB; `RegexTests` runs it on 2 MiB).
    static let maxDepth = 1_000

    /// True when the pattern matches somewhere in `string`; nil when the step budget or the
    /// depth ran out.
    public func matches(_ string: String) -> Bool? {
        let input = Array(string.unicodeScalars)
        let matcher = Matcher(input: input, ignoreCase: ignoreCase)
        let lastStart = anchoredStart ? 0 : input.count
        let anchoredEnd = self.anchoredEnd
        for start in 0...lastStart {
            let found = matcher.match(root, start) { end in !anchoredEnd || end == input.count }
            if matcher.steps > Self.stepBudget { return nil }
            if found { return true }
        }
        return false
    }

    final class Matcher {
        let input: [Unicode.Scalar]
        let ignoreCase: Bool
        var steps = 0
        /// `match` calls in progress.
        var depth = 0

        init(input: [Unicode.Scalar], ignoreCase: Bool) {
            self.input = input
            self.ignoreCase = ignoreCase
        }

        func same(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
            a == b || (ignoreCase && RuleRegex.lower(a) == RuleRegex.lower(b))
        }

        func match(_ node: Node, _ i: Int, _ next: (Int) -> Bool) -> Bool {
            steps += 1
            if steps > RuleRegex.stepBudget { return false }
            depth += 1
            defer { depth -= 1 }
            if depth > RuleRegex.maxDepth {
                // Counts as the budget running out: the match fails with an error.
                steps = RuleRegex.stepBudget + 1
                return false
            }
            switch node {
            case .char, .any, .set:
                return i < input.count && matchesOne(node, input[i]) && next(i + 1)
            case .sequence(let items):
                return sequence(items, 0, i, next)
            case .alternation(let branches):
                for branch in branches where match(branch, i, next) { return true }
                return false
            case .repetition(let inner, let min, let max):
                if Self.isOneScalar(inner) { return repeatOne(inner, min: min, max: max, i, next) }
                return repetition(inner, min: min, max: max, count: 0, i, next)
            }
        }

        /// Whether `node` always matches exactly one scalar (so it can be repeated by a loop).
        static func isOneScalar(_ node: Node) -> Bool {
            switch node {
            case .char, .any, .set: return true
            case .alternation(let branches): return branches.allSatisfy(isOneScalar)
            case .sequence(let items): return items.count == 1 && isOneScalar(items[0])
            case .repetition: return false
            }
        }

        /// Whether the one-scalar `node` matches `c`.
        func matchesOne(_ node: Node, _ c: Unicode.Scalar) -> Bool {
            switch node {
            case .char(let expected): return same(c, expected)
            case .any: return c != "\n" && c != "\r"
            case .set(let set): return set.contains(c, ignoreCase: ignoreCase)
            case .alternation(let branches): return branches.contains { matchesOne($0, c) }
            case .sequence(let items): return matchesOne(items[0], c)
            case .repetition: return false
            }
        }

        /// A repeated one-scalar node, greedy, as a loop: the longest run first, then shorter
        /// ones, each a step.
        func repeatOne(_ inner: Node, min: Int, max: Int?, _ i: Int, _ next: (Int) -> Bool) -> Bool {
            let limit = max.map { input.count - i > $0 ? i + $0 : input.count } ?? input.count
            var end = i
            while end < limit, matchesOne(inner, input[end]) { end += 1 }
            steps += end - i
            var k = end
            while k - i >= min {
                steps += 1
                if steps > RuleRegex.stepBudget { return false }
                if next(k) { return true }
                k -= 1
            }
            return false
        }

        func sequence(_ items: [Node], _ k: Int, _ i: Int, _ next: (Int) -> Bool) -> Bool {
            if k == items.count { return next(i) }
            return match(items[k], i) { j in self.sequence(items, k + 1, j, next) }
        }

        func repetition(_ inner: Node, min: Int, max: Int?, count: Int, _ i: Int, _ next: (Int) -> Bool) -> Bool {
            if let max, count >= max { return next(i) }
            // Greedy: one more repetition first (never an empty one, which would loop).
            if match(inner, i, { j in j != i && self.repetition(inner, min: min, max: max, count: count + 1, j, next) })
            {
                return true
            }
            if count < min {
                // An empty match of the inner pattern may still satisfy the minimum.
                return match(inner, i, { j in j == i && next(i) })
            }
            return next(i)
        }
    }
}
