/// A fuzz target: a name (the corpus folder `Fuzz/Corpus/<name>/`) and what it does with one input.
/// A target checks properties of what it parses with `require`, not only that nothing crashes.
struct FuzzTarget: Sendable {
    let name: String
    /// Builds what every input shares (fixed rules, tables), before fuzzing starts.
    var prepare: @Sendable () -> Void = {}
    let run: @Sendable (UnsafeRawBufferPointer) -> Void
}

enum FuzzTargets {
    /// Every target, by name.
    static let all: [FuzzTarget] = [
        JSONFuzz.target, JSONEventsFuzz.target, PathFuzz.target, QueryFuzz.target, FramesFuzz.target,
        MessagesFuzz.target, RulesDocumentFuzz.target, RulesExpressionFuzz.target, RulesEvaluationFuzz.target,
        TokenFuzz.target, PhoneFuzz.target,
    ]

    /// The target this process fuzzes (set once, before libFuzzer starts).
    nonisolated(unsafe) static var selected: FuzzTarget?
}

/// Stops the run with a crash libFuzzer records (the input is saved as `crash-...`) when a property does
/// not hold.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("property failed: " + message()) }
}

extension UnsafeRawBufferPointer {
    /// The input as text (invalid UTF-8 repaired, as a server decoding a request would do).
    var text: String { String(decoding: self, as: UTF8.self) }
}
