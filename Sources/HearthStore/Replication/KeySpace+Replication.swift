import HearthCore

extension KeySpace {
    /// `Z` + nsId: where the node's copy of a clustered namespace stands in the cluster's
    /// changelog (`ReplicationPosition`: position and epoch, 8 bytes each, big-endian). Written
    /// in the same batch as each entry it counts; never replicated.
    static let replicationTable = UInt8(ascii: "Z")

    var replicationPositionKey: [UInt8] { KeySpace.prefix(KeySpace.replicationTable, namespaceID) }

    /// Every table whose keys start with a namespace's id: what `Store.discardReplica` clears.
    static let namespaceTables: [UInt8] = [
        sequenceTable, dataTable, indexTable, keptListTable, retiredReverseTable, indexDefinitionTable,
        onDisconnectTable, commitLogTable, observerCursorTable, jobTable, lookupTable, lookupDefinitionTable,
        replicationTable,
    ]

    static func encode(_ position: ReplicationPosition) -> [UInt8] {
        NamespaceWriter.encode(position.lsn) + NamespaceWriter.encode(position.epoch)
    }

    static func decodePosition(_ bytes: [UInt8]) -> ReplicationPosition? {
        guard bytes.count == 16 else { return nil }
        return ReplicationPosition(
            lsn: NamespaceStore.decodeSequence(Array(bytes[0..<8])),
            epoch: NamespaceStore.decodeSequence(Array(bytes[8..<16]))
        )
    }
}
