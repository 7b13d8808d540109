/// A fuzz target: a name (the corpus folder `Fuzz/Corpus/<name>/`) and what it does with one input.
/// A target checks properties of what it parses with `require`, not only that nothing crashes.
public struct FuzzTarget: Sendable {
    public let name: String
    /// Builds what every input shares (fixed rules, tables), before fuzzing starts.
    let prepare: @Sendable () -> Void
    let run: @Sendable (UnsafeRawBufferPointer) -> Void

    public init(
        name: String,
        prepare: @escaping @Sendable () -> Void = {},
        run: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
    ) {
        self.name = name
        self.prepare = prepare
        self.run = run
    }
}

/// Stops the run with a crash libFuzzer records (the input is saved as `crash-...`) when a property does
/// not hold.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("property failed: " + message()) }
}

extension UnsafeRawBufferPointer {
    /// The input as text (invalid UTF-8 repaired, as a server decoding a request would do).
    public var text: String { String(decoding: self, as: UTF8.self) }
}
