import HearthFuzzSupport

/// `hearth-fuzz TARGET [libFuzzer flags] [corpus dirs]`: every fuzz target but those that need the
/// server (`hearth-fuzz-rest`). See docs/fuzzing.md.
@main
enum HearthFuzz {
    static let targets: [FuzzTarget] = [
        JSONFuzz.target, JSONEventsFuzz.target, PathFuzz.target, QueryFuzz.target, FramesFuzz.target,
        MessagesFuzz.target, RulesDocumentFuzz.target, RulesExpressionFuzz.target, RulesEvaluationFuzz.target,
        TokenFuzz.target, PhoneFuzz.target, MultipartFuzz.target, StorageRulesFuzz.target,
    ]

    static func main() {
        FuzzDriver.run(targets)
    }
}
