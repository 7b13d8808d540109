import HearthCore

/// What a rules check on a namespace's writer may learn from the writer's memory instead of a
/// LevelDB seek (`NamespaceReader.summary(at:)`): a location a rule read before, while nothing
/// wrote at, above or below it since (`RememberedReads`); a leaf the writer remembers writing
/// (`SubtreeShapes`); a new child past the end of a list whose end the writer knows. A chat
/// message's rules read the sender's membership and block entry every message, and the new
/// message's own location: three iterators a message otherwise.
///
/// The memory holds the state with the round's staged writes, the snapshot the state before
/// them. They differ only at locations a staged write touched, which the check's `ReadLog`
/// notes whatever answered them (the writer then plans the write again after the staged ones):
/// so an answer from memory is the snapshot's answer whenever the check's verdict stands.
struct RuleReadMemory {
    let shapes: SubtreeShapes
    /// Whether what the snapshot answers may be remembered: nothing is staged in the round, so
    /// the snapshot is the state the write applies to.
    let remembers: Bool
    /// The data key of the write's location: reads at or below it are not remembered (the
    /// write itself changes them).
    let written: [UInt8]

    func summary(at dataKey: [UInt8], read: () -> StoredSummary) -> StoredSummary {
        var parent: (hash: UInt64, length: Int)?
        guard let hash = SubtreeShapes.forEachAncestor(of: dataKey, { parent = ($0, $1) }) else { return read() }
        if let known = shapes.reads.summary(at: dataKey, hash: hash) { return known }
        if let leaf = shapes.shape(at: dataKey, hash: hash)?.leaf { return .leaf(leaf) }
        if shapes.isPastTail(dataKey, parent: parent) { return .absent }
        let found = read()
        if remembers, !KeyBytes.hasPrefix(dataKey, written) { shapes.reads.remember(found, at: dataKey) }
        return found
    }
}
