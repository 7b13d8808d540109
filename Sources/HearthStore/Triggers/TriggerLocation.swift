public import HearthCore

/// A location a trigger reads for every write it sees (a chat member's `lastMessageAt`), with
/// its key in one namespace worked out once: `TriggerSnapshot.location(_:)` makes it, the
/// trigger keeps it, and `TriggerSnapshot.hasLeaf(at:)` answers from it without encoding the
/// path again. Kept for another namespace it still answers right, by the path.
public struct TriggerLocation: Sendable {
    public let path: DataPath
    let namespaceID: UInt32
    let dataKey: [UInt8]
    /// `SubtreeShapes.hash(dataKey)`.
    let hash: UInt64
}

extension TriggerSnapshot {
    /// `path` in this snapshot's namespace, to keep.
    public func location(_ path: DataPath) -> TriggerLocation {
        let dataKey = reader.keys.dataKey(path)
        return TriggerLocation(
            path: path,
            namespaceID: reader.keys.namespaceID,
            dataKey: dataKey,
            hash: SubtreeShapes.hash(dataKey)
        )
    }

    /// True when a leaf is stored at `location`: `leaf(at: location.path) != nil`, without
    /// decoding it (none of it read when the writer remembers writing that leaf).
    public func hasLeaf(at location: TriggerLocation) -> Bool {
        guard location.namespaceID == reader.keys.namespaceID else { return leaf(at: location.path) != nil }
        if let shapes, shapes.hasLeaf(at: location.dataKey, hash: location.hash) { return true }
        reads.note(location.path)
        return reader.snapshot.get(location.dataKey) != nil
    }
}

extension TriggerSnapshot {
    /// `leaf(at: location.path)`, without encoding the path again (nothing read when the writer
    /// remembers writing that leaf).
    public func leaf(at location: TriggerLocation) -> LeafValue? {
        guard location.namespaceID == reader.keys.namespaceID else { return leaf(at: location.path) }
        if let shapes, let leaf = shapes.shape(at: location.dataKey, hash: location.hash)?.leaf { return leaf }
        reads.note(location.path)
        return reader.snapshot.get(location.dataKey).flatMap { bytes in
            bytes.withUnsafeBytes { ValueEncoding.decode($0) }
        }
    }
}
