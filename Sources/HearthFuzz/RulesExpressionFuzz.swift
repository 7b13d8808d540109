import HearthCore
import HearthFuzzSupport
import HearthRules

/// One rule expression (lexer, parser, checker, optimiser, evaluator), placed by the first byte as the
/// `.read`, `.write` or `.validate` of `users/$uid`, then evaluated for every fixture caller and path.
enum RulesExpressionFuzz {
    static let target = FuzzTarget(name: "rules-expression", prepare: { RulesFixture.prepare() }) { input in
        guard let first = input.first else { return }
        let kind = [".read", ".write", ".validate"][Int(first % 3)]
        let expression = UnsafeRawBufferPointer(rebasing: input.dropFirst()).text
        var document = Array(#"{"rules": {".read": "auth != null", "users": {"$uid": {"#.utf8)
        JSONRenderer.appendString(kind, into: &document)
        document.append(UInt8(ascii: ":"))
        JSONRenderer.appendString(expression, into: &document)
        document.append(contentsOf: "}}}}".utf8)
        let source = String(decoding: document, as: UTF8.self)
        switch RulesDocument.compile(source: source) {
        case .success(let program):
            RulesFixture.exercise(program)
        case .failure(let diagnostics):
            require(!diagnostics.diagnostics.isEmpty, "a refused expression without a diagnostic")
        }
    }
}
