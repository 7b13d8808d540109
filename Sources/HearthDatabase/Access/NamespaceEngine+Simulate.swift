public import HearthRules

extension NamespaceEngine {
    /// Runs `simulation` against the namespace's data as it is now, with `program` (nil: the
    /// rules in force), recording every rule that ran and the value of every part of each (the
    /// rules simulator). Nothing is written or listened to.
    /// - Throws: `RuleInputError` for a write's `value` that is not valid data.
    public func simulate(_ simulation: RuleSimulation, with program: RuleProgram? = nil) async throws -> RuleDecision {
        guard let program = program ?? rules.current else { return RuleDecision(allowed: false) }
        let now = rules.now()
        return try await store.read { reader in
            try simulation.run(program, root: StoreRuleSource(reader), now: now)
        }
    }
}
