extension NamespaceReader {
    /// The sequence number of the last write this snapshot includes (0 before the first write).
    public var sequence: UInt64 {
        snapshot.get(keys.sequenceKey).map(NamespaceStore.decodeSequence) ?? 0
    }

    /// The changelog position of the last replicated batch this snapshot includes (0 when it
    /// holds none: a namespace never written in a cluster).
    var replicationPosition: UInt64 {
        snapshot.get(keys.replicationPositionKey).flatMap(KeySpace.decodePosition)?.lsn ?? 0
    }
}
