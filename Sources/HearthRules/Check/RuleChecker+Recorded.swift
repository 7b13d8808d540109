extension RuleChecker {
    /// The expression of `syntax` and its type. Every part but a literal is marked `recorded` with
    /// the span of its text, so that the simulator can show each part's value; `RuleOptimizer`
    /// removes the marks from the expression ordinary decisions evaluate.
    func check(_ syntax: RuleSyntax) -> (RuleExpression, RuleType) {
        let (expression, type) = checkNode(syntax)
        switch (syntax.kind, expression) {
        case (.number, _), (.string, _), (.bool, _), (.null, _), (.regex, _), (_, .constant):
            return (expression, type)
        default:
            return (.recorded(expression, RuleSpan(start: syntax.start, end: syntax.end)), type)
        }
    }
}
