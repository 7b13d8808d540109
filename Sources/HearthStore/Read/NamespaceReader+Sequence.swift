extension NamespaceReader {
    /// The sequence number of the last write this snapshot includes (0 before the first write).
    public var sequence: UInt64 {
        snapshot.get(keys.sequenceKey).map(NamespaceStore.decodeSequence) ?? 0
    }
}
