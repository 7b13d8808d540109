/// The simulator's record of one storage rules decision: every part of each condition that ran,
/// with its value, as the tree the database rules' simulator gives (`RuleSubexpression`):
/// literals left out (their value is their text), a called function's body under its call.
/// Parts a short circuit skipped are not listed. At most `RuleSubexpression.limitPerSimulation`
/// parts are kept per decision; past it `truncated` is set and conditions have no evaluation.
final class StorageEvaluationRecording {
    /// The parts recorded under each part being evaluated, innermost last.
    private var frames: [[RuleSubexpression]] = [[]]
    private var count = 0
    private(set) var truncated = false

    /// A part starts being evaluated.
    func enter() {
        frames.append([])
    }

    /// The part `expression` came to `value`: it goes under its parent with its own parts.
    func leave(_ expression: StorageExpression, _ value: StorageRuleValue) {
        let children = frames.removeLast()
        if expression.isLiteral { return }
        guard count < RuleSubexpression.limitPerSimulation else {
            truncated = true
            return
        }
        count += 1
        frames[frames.count - 1].append(
            RuleSubexpression(
                text: Self.shortened(expression.text),
                position: expression.position,
                value: RuleSubexpression.Value(value),
                children: children
            )
        )
    }

    /// The tree of the condition evaluated since the last call (nil when nothing was kept).
    func takeCondition() -> RuleSubexpression? {
        defer { frames = [[]] }
        return truncated ? nil : frames[0].last
    }

    private static func shortened(_ text: String) -> String {
        guard text.count > RuleSubexpression.maxTextLength else { return text }
        return String(text.prefix(RuleSubexpression.maxTextLength)) + "…"
    }
}

extension StorageExpression {
    /// A literal's value is its text: the simulator does not list it.
    var isLiteral: Bool {
        switch kind {
        case .null, .bool, .int, .float, .string, .bytes: return true
        default: return false
        }
    }
}

extension RuleSubexpression.Value {
    /// A storage rules value as the simulator shows it: JSON's own types as data, the others
    /// (timestamp, duration, path, bytes, set, latlng, map_diff) with their type's name.
    init(_ value: StorageRuleValue) {
        switch value {
        case .null, .bool, .int, .float, .string, .list, .map:
            self = .data(Self.shortened(value.json))
        case .error(let message):
            self = .error(message)
        case .bytes, .set, .mapDiff, .path, .timestamp, .duration, .latlng:
            self = .typed(value.typeName, Self.shortened(value.json))
        }
    }
}
