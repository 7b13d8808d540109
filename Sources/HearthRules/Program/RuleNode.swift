internal import HearthCore

/// One compiled rule: the expression, and where it came from.
struct CompiledRule: Sendable {
    let kind: RuleKind
    let expression: RuleExpression
    /// The source text as written (`true` for a boolean literal).
    let source: String
    /// `/rules/users/$uid/.read`
    let rulePath: String
    let position: SourcePosition
    /// Statically true or false (boolean literal).
    let constant: Bool?
}

/// One location of the rules tree: rules here, literal children, at most one `$wildcard` child.
final class RuleNode: Sendable {
    let read: CompiledRule?
    let write: CompiledRule?
    let validate: CompiledRule?
    let children: [ChildKey: RuleNode]
    let wildcardName: String?
    let wildcard: RuleNode?
    /// True when this location or one below has a `.validate` rule.
    let hasValidate: Bool

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
        self.wildcardName = wildcardName
        self.wildcard = wildcard
        self.hasValidate =
            validate != nil || children.values.contains(where: \.hasValidate) || (wildcard?.hasValidate ?? false)
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
        if let literal = children[key] { return (literal, false) }
        if let wildcard { return (wildcard, true) }
        return nil
    }

    static let empty = RuleNode(read: nil, write: nil, validate: nil, children: [:], wildcardName: nil, wildcard: nil)
}
