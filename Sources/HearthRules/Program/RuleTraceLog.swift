internal import HearthCore

/// What a traced decision keeps: every rule that ran, in order, and for the simulator a recorder
/// of the value of each part of their expressions. Only traced decisions have one, so an
/// ordinary decision never runs any of this.
struct RuleTraceLog {
    var entries: [RuleTraceEntry] = []
    /// nil: rules and outcomes only (`hearth rules test`).
    let recorder: RuleValueRecorder?

    init(recorder: RuleValueRecorder? = nil) {
        self.recorder = recorder
    }

    /// Runs `rule` and logs it. With a recorder (and room within its limit), the rule's traced
    /// expression is evaluated, recording every part; its outcome is the optimized
    /// expression's (`RuleOptimizer` keeps outcomes and errors).
    mutating func run(_ rule: CompiledRule, evaluator: RuleEvaluator) -> RuleTraceEntry {
        let outcome: RuleOutcome
        var evaluation: RuleSubexpression?
        if let constant = rule.constant {
            outcome = constant ? .true : .false
        } else if let recorder, recorder.begin(count: RuleSubexpression.count(rule.traced)) {
            var recording = evaluator
            recording.recorder = recorder
            outcome = recording.run(rule.traced)
            evaluation = RuleSubexpression.tree(of: rule, recorder: recorder)
        } else {
            outcome = evaluator.run(rule.expression)
        }
        let entry = RuleTraceEntry(
            kind: rule.kind,
            path: DataPath(keys: evaluator.locationKeys),
            rule: rule.rulePath,
            expression: rule.source,
            position: rule.position,
            outcome: outcome,
            evaluation: evaluation
        )
        entries.append(entry)
        return entry
    }
}
