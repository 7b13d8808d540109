/// What keeping a write's index entries read from the snapshot and wrote, for the writer's
/// staging (`WriteJob`): a write staged in the same round at, above or below one of the data
/// paths read makes the plan stale; the reverse entries (child → indexed value) it put or
/// deleted are what later writes of the same staged group must start from, since the snapshot
/// they are planned against does not have them yet.
final class IndexPlanNotes {
    /// The data paths read from the snapshot (not answered by the write itself or by what the
    /// writer remembers).
    let reads = ReadLog()
    /// Reverse entries put (with their value) or deleted (nil), in order.
    private(set) var reverseEntries: [(key: [UInt8], value: [UInt8]?)] = []
    /// A reverse entry as the round's staged writes left it: nil when none of them wrote it,
    /// `.some(nil)` when one deleted it.
    private let staged: (([UInt8]) -> [UInt8]??)?

    init(staged: (([UInt8]) -> [UInt8]??)? = nil) {
        self.staged = staged
    }

    /// The reverse entry at `key` before the write: staged, else in `snapshot`.
    func reverseEntry(_ key: [UInt8], in snapshot: Snapshot) -> [UInt8]? {
        if let staged, let value = staged(key) { return value }
        return snapshot.get(key)
    }

    func noteReverseEntry(_ key: [UInt8], _ value: [UInt8]?) {
        reverseEntries.append((key, value))
    }
}
