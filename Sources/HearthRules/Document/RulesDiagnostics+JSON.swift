public import HearthCore

extension RulesDiagnostics {
    /// What the rules-check endpoints answer for a draft of either language (the console checks
    /// as the admin types): `{"ok", "diagnostics": [{"line", "column", "message"}]}`; `found` nil
    /// when the draft compiles.
    public static func checkAnswer(_ found: RulesDiagnostics?) -> JSONValue {
        let diagnostics: [JSONValue] = (found?.diagnostics ?? []).map { diagnostic in
            [
                "line": .number(Double(diagnostic.position.line)),
                "column": .number(Double(diagnostic.position.column)), "message": .string(diagnostic.message),
            ]
        }
        return ["ok": .bool(diagnostics.isEmpty), "diagnostics": .array(diagnostics)]
    }
}
