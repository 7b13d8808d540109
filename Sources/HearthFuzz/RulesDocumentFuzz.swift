import HearthFuzzSupport
import HearthRules

/// A whole rules document (JSON with comments, every expression lexed, parsed and type-checked): it
/// compiles or reports at least one diagnostic, and what compiles evaluates the same traced or not.
enum RulesDocumentFuzz {
    static let target = FuzzTarget(name: "rules-document", prepare: { RulesFixture.prepare() }) { input in
        switch RulesDocument.compile(source: input.text) {
        case .success(let program):
            RulesFixture.exercise(program)
        case .failure(let diagnostics):
            require(!diagnostics.diagnostics.isEmpty, "a refused document without a diagnostic")
            for diagnostic in diagnostics.diagnostics {
                require(diagnostic.position.line >= 1, "diagnostic at line \(diagnostic.position.line)")
            }
        }
    }
}
