internal import HearthCore

/// What a decision keeps of the rules it runs, and the decision it returns. The evaluation is
/// generic over it, so that an ordinary decision (`UntracedRules`) is compiled without any of
/// the tracing: no entry is built, copied or checked for nil on its way out.
protocol RuleTracing {
    /// What is kept of the rule that decided: a `RuleTraceEntry`, or nothing (`Void`).
    associatedtype Entry
    /// Runs `rule`: whether it is true, and what is kept of it.
    mutating func run(_ rule: CompiledRule, evaluator: RuleEvaluator) -> (Bool, Entry)
    func decision(_ allowed: Bool, decidedBy: Entry?) -> RuleDecision
}

/// An ordinary decision: the optimized expression of each rule, nothing kept.
struct UntracedRules: RuleTracing {
    @inline(__always)
    func run(_ rule: CompiledRule, evaluator: RuleEvaluator) -> (Bool, Void) {
        if let constant = rule.constant { return (constant, ()) }
        return (evaluator.run(rule.expression) == .true, ())
    }

    @inline(__always)
    func decision(_ allowed: Bool, decidedBy: Void?) -> RuleDecision {
        RuleDecision(allowed: allowed)
    }
}

/// What a traced decision keeps: every rule that ran, in order, and for the simulator a recorder
/// of the value of each part of their expressions. Only traced decisions have one, so an
/// ordinary decision never runs any of this.
struct RuleTraceLog: RuleTracing {
    var entries: [RuleTraceEntry] = []
    /// nil: rules and outcomes only (`hearth rules test`).
    let recorder: RuleValueRecorder?

    init(recorder: RuleValueRecorder? = nil) {
        self.recorder = recorder
    }

    /// Runs `rule` and logs it. With a recorder (and room within its limit), the rule's traced
    /// expression is evaluated, recording every part; its outcome is the optimized
    /// expression's (`RuleOptimizer` keeps outcomes and errors).
    mutating func run(_ rule: CompiledRule, evaluator: RuleEvaluator) -> (Bool, RuleTraceEntry) {
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
        return (outcome == .true, entry)
    }

    func decision(_ allowed: Bool, decidedBy: RuleTraceEntry?) -> RuleDecision {
        RuleDecision(
            allowed: allowed,
            trace: entries,
            decidedBy: decidedBy,
            evaluationTruncated: recorder?.truncated ?? false
        )
    }
}
