import Foundation

/// The regular expressions of the storage rules language (RE2 syntax, within the subset the
/// database rules' matcher knows): `matches` must match the whole string; `replace` and `split`
/// find every match. A leading `(?i)` ignores case; `(?:...)` groups like `(...)`.
extension RuleRegex {
    init(rulesPattern: String, fullMatch: Bool) throws(SyntaxError) {
        var pattern = rulesPattern
        var ignoreCase = false
        if pattern.hasPrefix("(?i)") {
            ignoreCase = true
            pattern.removeFirst(4)
        }
        pattern = pattern.replacingOccurrences(of: "(?:", with: "(")
        if fullMatch {
            try self.init(pattern: "^(" + pattern + ")$", ignoreCase: ignoreCase)
        } else {
            try self.init(pattern: pattern, ignoreCase: ignoreCase)
        }
    }

    /// The first match at or after scalar `from`: its start and end; nil when none; throws
    /// when the step budget ran out.
    private func firstMatch(in input: [Unicode.Scalar], from: Int, matcher: Matcher) -> Range<Int>?? {
        let last = anchoredStart ? min(from, 0) : input.count
        guard from <= last else { return .some(nil) }
        for start in from...last {
            var found: Int?
            let matched = matcher.match(root, start) { end in
                if anchoredEnd, end != input.count { return false }
                found = end
                return true
            }
            if matcher.steps > Self.stepBudget { return nil }
            if matched, let found { return .some(start..<found) }
        }
        return .some(nil)
    }

    /// Every non-overlapping match replaced by `replacement`; nil when matching ran out of steps.
    func replacingAll(in string: String, with replacement: String) -> String? {
        let input = Array(string.unicodeScalars)
        let matcher = Matcher(input: input, ignoreCase: ignoreCase)
        var out = String.UnicodeScalarView()
        var position = 0
        while position <= input.count {
            guard let found = firstMatch(in: input, from: position, matcher: matcher) else { return nil }
            guard let range = found else { break }
            out.append(contentsOf: input[position..<range.lowerBound])
            out.append(contentsOf: replacement.unicodeScalars)
            if range.isEmpty {
                if range.lowerBound < input.count { out.append(input[range.lowerBound]) }
                position = range.lowerBound + 1
            } else {
                position = range.upperBound
            }
        }
        if position < input.count { out.append(contentsOf: input[position...]) }
        return String(out)
    }

    /// The parts between matches; nil when matching ran out of steps.
    func splitting(_ string: String) -> [String]? {
        let input = Array(string.unicodeScalars)
        let matcher = Matcher(input: input, ignoreCase: ignoreCase)
        var parts: [String] = []
        var partStart = 0
        var position = 0
        while position <= input.count {
            guard let found = firstMatch(in: input, from: position, matcher: matcher) else { return nil }
            guard let range = found else { break }
            if range.isEmpty {
                position = range.lowerBound + 1
                continue
            }
            parts.append(String(String.UnicodeScalarView(input[partStart..<range.lowerBound])))
            partStart = range.upperBound
            position = range.upperBound
        }
        parts.append(String(String.UnicodeScalarView(input[partStart...])))
        return parts
    }
}
