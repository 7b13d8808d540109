/// Where a cluster keeps each namespace's rules (`hearth serve --cluster`): the rules are the
/// cluster's, not a node's file. A node that takes a namespace over puts the cluster's newest
/// document in force; a namespace the cluster has no rules for is seeded from the taking
/// node's file; `PUT /.settings/rules.json`, a rollback and an edit of the owner's file publish
/// the new document before it is in force.
public protocol SharedRules: Sendable {
    /// The namespace's newest documents, oldest first (at most `limit`); versions count up
    /// from 1 per namespace.
    func history(of namespace: String, limit: Int) async throws -> [RulesVersion]

    /// Makes `text` the namespace's newest document; `origin` as in `RulesVersion`.
    func publish(_ text: String, for namespace: String, origin: String) async throws

    /// Whether the cluster has rules for the namespace.
    func has(_ namespace: String) async throws -> Bool
}
