public import HearthCore

extension ChatConsistencyCheck {
    /// Compares each of the chat app's lookup indexes (phone numbers, name words, memberships)
    /// with the profiles and memberships they are derived from; one sentence per entry that is
    /// missing or should not be there.
    /// - Parameter compare: the entries of the named index the data calls for but the index
    ///   lacks (`missing`), and those it holds but should not (`extra`), compared in one
    ///   snapshot of namespace `namespace`; nil when no such index is registered there.
    public static func lookupDisagreements(
        in namespace: String,
        comparing compare: (String) async throws -> (missing: [LookupMatch], extra: [LookupMatch])?
    ) async throws -> [String] {
        var found: [String] = []
        for lookup in ChatApp.lookups {
            guard let disagreement = try await compare(lookup.name) else {
                found.append("The lookup index \(lookup.name) is not registered in '\(namespace)'.")
                continue
            }
            for match in disagreement.missing {
                found.append("\(lookup.name): '\(match.term)' should find \(match.location) but does not.")
            }
            for match in disagreement.extra {
                found.append("\(lookup.name): '\(match.term)' finds \(match.location), which the data does not say.")
            }
        }
        return found
    }
}
