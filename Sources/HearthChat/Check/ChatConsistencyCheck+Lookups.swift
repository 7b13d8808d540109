public import HearthStore

extension ChatConsistencyCheck {
    /// Compares each of the chat app's lookup indexes (phone numbers, name words, memberships)
    /// with the profiles and memberships they are derived from; one sentence per entry that is
    /// missing or should not be there.
    public static func lookupDisagreements(in namespace: NamespaceStore) async throws -> [String] {
        var found: [String] = []
        for lookup in ChatApp.lookups {
            guard let disagreement = try await namespace.lookupDisagreement(lookup.name) else {
                found.append("The lookup index \(lookup.name) is not registered in '\(namespace.name)'.")
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
