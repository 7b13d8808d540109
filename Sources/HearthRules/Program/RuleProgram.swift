public import HearthCore

/// A compiled rules document: compile once with `RulesDocument.compile`, then evaluate many
/// times, from any thread.
///
/// Semantics (firebase.google.com/docs/database/security/core-syntax, "How read and write rules
/// cascade"; /docs/reference/security/database):
/// - `.read` and `.write` cascade: an operation at a path is allowed when any rule from the root
///   down to that path is true; a grant higher up cannot be revoked below.
/// - Rules are not filters: reading a location needs a grant at it or above it, whatever the
///   rules below it say.
/// - `.validate` does not cascade: every `.validate` at a location where the new data is not
///   null must be true, at and below each written path and on the ancestors of it.
/// - A rule whose evaluation fails (a type error, a method on null) is false.
public struct RuleProgram: Sendable {
    let root: RuleNode
    /// Every `.indexOn` entry, in document order.
    public let indexes: [IndexSpec]
    /// The rules file, verbatim.
    public let source: RulesSource

    init(root: RuleNode, indexes: [IndexSpec], source: RulesSource) {
        self.root = root
        self.indexes = indexes
        self.source = source
    }

    /// Whether `auth` may read `path` (with `query` when the read is a query).
    /// - Parameters:
    ///   - root: the database as it is now.
    ///   - now: milliseconds since the epoch (the `now` variable).
    ///   - trace: record every rule evaluated in the decision (slower; for tests and tools).
    public func canRead(
        path: DataPath,
        auth: RuleAuth?,
        root: some RuleDataSource,
        now: Double,
        query: RuleQuery? = nil,
        trace: Bool = false
    ) -> RuleDecision {
        guard trace else {
            return canRead(path: path, auth: auth, root: root, now: now, query: query, tracing: UntracedRules())
        }
        return canRead(path: path, auth: auth, root: root, now: now, query: query, tracing: RuleTraceLog())
    }

    /// `canRead`, keeping what `tracing` keeps of the rules that run.
    @inline(__always)
    func canRead<Tracing: RuleTracing>(
        path: DataPath,
        auth: RuleAuth?,
        root: some RuleDataSource,
        now: Double,
        query: RuleQuery?,
        tracing initialTracing: Tracing
    ) -> RuleDecision {
        var evaluator = RuleEvaluator(
            auth: auth,
            current: root,
            new: nil,
            now: now,
            query: query ?? .plainRead
        )
        var tracing = initialTracing
        if let grant = cascade(.read, to: path, evaluator: &evaluator, tracing: &tracing) {
            return tracing.decision(true, decidedBy: grant)
        }
        return tracing.decision(false, decidedBy: nil)
    }

    /// Whether `auth` may write at `path`.
    /// - Parameters:
    ///   - path: where the write happens (the location of a `set`, or of an `update`).
    ///   - root: the database before the write.
    ///   - newRoot: the database as it would be after the write (see `RuleOverlaySource`); for a
    ///     multi-path update, after all of it.
    ///   - changedPaths: the absolute paths written (one per key of an update); empty means `[path]`.
    ///     Every one must be writable and valid, or the whole write is denied.
    public func canWrite(
        path: DataPath,
        auth: RuleAuth?,
        root: some RuleDataSource,
        newRoot: some RuleDataSource,
        now: Double,
        changedPaths: [DataPath] = [],
        trace: Bool = false
    ) -> RuleDecision {
        // Two calls spelled out: a local generic function taking `some RuleTracing` was not
        // specialized, and made every decision ~20 % slower (docs/rules.md).
        guard trace else {
            return canWrite(
                path: path,
                auth: auth,
                root: root,
                newRoot: newRoot,
                now: now,
                changedPaths: changedPaths,
                tracing: UntracedRules()
            )
        }
        return canWrite(
            path: path,
            auth: auth,
            root: root,
            newRoot: newRoot,
            now: now,
            changedPaths: changedPaths,
            tracing: RuleTraceLog()
        )
    }

    /// `canWrite`, keeping what `tracing` keeps of the rules that run.
    @inline(__always)
    func canWrite<Tracing: RuleTracing>(
        path: DataPath,
        auth: RuleAuth?,
        root: some RuleDataSource,
        newRoot: some RuleDataSource,
        now: Double,
        changedPaths: [DataPath],
        tracing initialTracing: Tracing
    ) -> RuleDecision {
        var evaluator = RuleEvaluator(auth: auth, current: root, new: newRoot, now: now, query: RuleQuery())
        var tracing = initialTracing
        if changedPaths.count <= 1 {
            // One written path (a set): no ancestor is shared with another path.
            let target = changedPaths.first ?? path
            guard let grant = cascade(.write, to: target, evaluator: &evaluator, tracing: &tracing) else {
                return tracing.decision(false, decidedBy: nil)
            }
            var validatedAncestors = Set<DataPath>()
            if let failure = validate(
                target,
                newRoot: newRoot,
                evaluator: &evaluator,
                tracing: &tracing,
                done: &validatedAncestors
            ) {
                return tracing.decision(false, decidedBy: failure)
            }
            return tracing.decision(true, decidedBy: grant)
        }
        let changed = changedPaths
        var grant: Tracing.Entry?
        for target in changed {
            guard let g = cascade(.write, to: target, evaluator: &evaluator, tracing: &tracing) else {
                return tracing.decision(false, decidedBy: nil)
            }
            grant = grant ?? g
        }
        var validatedAncestors = Set<DataPath>()
        for target in changed {
            if let failure = validate(
                target,
                newRoot: newRoot,
                evaluator: &evaluator,
                tracing: &tracing,
                done: &validatedAncestors
            ) {
                return tracing.decision(false, decidedBy: failure)
            }
        }
        return tracing.decision(true, decidedBy: grant)
    }

    // MARK: Evaluation

    /// The `.read`/`.write` cascade from the root to `target`: the first true rule grants.
    /// Returns the granting entry (`()` when not tracing), or nil when none grants.
    private func cascade<Tracing: RuleTracing>(
        _ kind: RuleKind,
        to target: DataPath,
        evaluator: inout RuleEvaluator,
        tracing: inout Tracing
    ) -> Tracing.Entry? {
        var node = root
        evaluator.wildcards.removeAll(keepingCapacity: true)
        evaluator.locationKeys.removeAll(keepingCapacity: true)
        evaluator.newNodeAtLocation = .unknown
        var depth = 0
        while true {
            if let rule = node.rule(kind) {
                let (granted, entry) = tracing.run(rule, evaluator: evaluator)
                if granted { return entry }
            }
            if depth == target.depth { return nil }
            let key = target.keys[depth]
            guard let next = node.child(key) else { return nil }
            if next.isWildcard { evaluator.wildcards.append(key) }
            evaluator.locationKeys.append(key)
            node = next.node
            depth += 1
        }
    }

    /// Every `.validate` that applies to a write at `target`; returns the first failure's entry
    /// (`()` when not tracing) or nil when all pass.
    private func validate<Tracing: RuleTracing>(
        _ target: DataPath,
        newRoot: some RuleDataSource,
        evaluator: inout RuleEvaluator,
        tracing: inout Tracing,
        done: inout Set<DataPath>
    ) -> Tracing.Entry? {
        var node = root
        evaluator.wildcards.removeAll(keepingCapacity: true)
        evaluator.locationKeys.removeAll(keepingCapacity: true)
        evaluator.newNodeAtLocation = .unknown
        // Ancestors of the written path: their new data is the merged result.
        for depth in 0..<target.depth {
            if let rule = node.validate {
                let location = DataPath(keys: evaluator.locationKeys)
                if done.insert(location).inserted, newRoot.summary(at: location) != .absent {
                    let (ok, entry) = tracing.run(rule, evaluator: evaluator)
                    if !ok { return entry }
                }
            }
            let key = target.keys[depth]
            guard let next = node.child(key) else { return nil }
            if next.isWildcard { evaluator.wildcards.append(key) }
            evaluator.locationKeys.append(key)
            node = next.node
        }
        guard node.hasValidate else { return nil }
        return validateSubtree(node, newNode: newRoot.node(at: target), evaluator: &evaluator, tracing: &tracing)
    }

    /// `.validate` at the evaluator's location and at every node of the new data below it
    /// (null is skipped).
    private func validateSubtree<Tracing: RuleTracing>(
        _ node: RuleNode,
        newNode: Node?,
        evaluator: inout RuleEvaluator,
        tracing: inout Tracing
    ) -> Tracing.Entry? {
        guard let newNode else { return nil }
        if let rule = node.validate {
            evaluator.newNodeAtLocation = .known(newNode)
            let (ok, entry) = tracing.run(rule, evaluator: evaluator)
            evaluator.newNodeAtLocation = .unknown
            if !ok { return entry }
        }
        guard case .children(let children, _) = newNode else { return nil }
        let wildcard = node.wildcard.flatMap { $0.hasValidate ? $0 : nil }
        guard node.literalHasValidate || wildcard != nil else { return nil }
        for (key, child) in zip(children.keys, children.nodes) {
            let target: RuleNode
            let isWildcard: Bool
            if let literal = node.literal(key) {
                guard literal.hasValidate else { continue }
                target = literal
                isWildcard = false
            } else if let wildcard {
                target = wildcard
                isWildcard = true
            } else {
                continue
            }
            if isWildcard { evaluator.wildcards.append(key) }
            evaluator.locationKeys.append(key)
            let failure = validateSubtree(target, newNode: child, evaluator: &evaluator, tracing: &tracing)
            evaluator.locationKeys.removeLast()
            if isWildcard { evaluator.wildcards.removeLast() }
            if let failure { return failure }
        }
        return nil
    }
}
