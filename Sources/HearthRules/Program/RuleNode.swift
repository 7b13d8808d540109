internal import HearthCore

/// One compiled rule: the expression, and where it came from. A class, so that running a rule
/// costs one reference count rather than a copy of its strings.
final class CompiledRule: Sendable {
    let kind: RuleKind
    /// What decisions evaluate: optimized, without the simulator's marks.
    let expression: RuleExpression
    /// The expression as checked, each part marked `recorded` with its span: what the simulator
    /// evaluates to show the value of every part (the same outcome: `RuleOptimizer` keeps it).
    let traced: RuleExpression
    /// The position in the rules file of each scalar of `source`.
    let sourceMap: RuleSourceMap
    /// The source text as written (`true` for a boolean literal).
    let source: String
    /// `/rules/users/$uid/.read`
    let rulePath: String
    let position: SourcePosition
    /// Statically true or false (boolean literal).
    let constant: Bool?

    init(
        kind: RuleKind,
        expression: RuleExpression,
        source: String,
        rulePath: String,
        position: SourcePosition,
        constant: Bool?,
        sourceMap: RuleSourceMap = .none
    ) {
        self.kind = kind
        self.expression = RuleOptimizer.optimize(expression)
        self.traced = expression
        self.sourceMap = sourceMap
        self.source = source
        self.rulePath = rulePath
        self.position = position
        self.constant = constant
    }
}

/// One location of the rules tree: rules here, literal children, at most one `$wildcard` child.
final class RuleNode: Sendable {
    let read: CompiledRule?
    let write: CompiledRule?
    let validate: CompiledRule?
    let children: [ChildKey: RuleNode]
    /// The literal children again, as parallel arrays searched linearly with a byte comparison
    /// (faster than hashing a key for the few children a rules location has).
    private let literalKeys: [ChildKey]
    private let literalNodes: [RuleNode]
    let wildcardName: String?
    let wildcard: RuleNode?
    /// True when this location or one below has a `.validate` rule.
    let hasValidate: Bool
    /// True when a literal child (or one below it) has a `.validate` rule.
    let literalHasValidate: Bool

    init(
        read: CompiledRule?,
        write: CompiledRule?,
        validate: CompiledRule?,
        children: [ChildKey: RuleNode],
        wildcardName: String?,
        wildcard: RuleNode?
    ) {
        self.read = read
        self.write = write
        self.validate = validate
        self.children = children
        self.literalKeys = Array(children.keys)
        self.literalNodes = literalKeys.map { children[$0]! }
        self.wildcardName = wildcardName
        self.wildcard = wildcard
        self.literalHasValidate = children.values.contains(where: \.hasValidate)
        self.hasValidate = validate != nil || literalHasValidate || (wildcard?.hasValidate ?? false)
    }

    func rule(_ kind: RuleKind) -> CompiledRule? {
        switch kind {
        case .read: return read
        case .write: return write
        case .validate: return validate
        }
    }

    /// The child location for `key`: a literal child wins over the wildcard (`$other` matches
    /// every key no sibling names).
    @inline(__always)
    func child(_ key: ChildKey) -> (node: RuleNode, isWildcard: Bool)? {
        if let literal = literal(key) { return (literal, false) }
        if let wildcard { return (wildcard, true) }
        return nil
    }

    /// The literal child named `key`, if any.
    func literal(_ key: ChildKey) -> RuleNode? {
        if literalKeys.count > 16 { return children[key] }
        for i in literalKeys.indices where RuleKeys.equal(literalKeys[i], key) { return literalNodes[i] }
        return nil
    }

    static let empty = RuleNode(read: nil, write: nil, validate: nil, children: [:], wildcardName: nil, wildcard: nil)
}
