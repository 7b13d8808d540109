/// What keeping a write's index entries read from the snapshot and changed, for the writer's
/// staging (`WriteJob`): a write staged in the same round at, above or below one of the data
/// paths read makes the plan stale; the indexed values (child → encoded value, kept in memory
/// by entry identity, `IndexMaintenance.LocatedChild.identity`) it changed are what later
/// writes of the same staged group must start from, since the snapshot they are planned
/// against does not have them yet.
final class IndexPlanNotes {
    /// The data paths read from the snapshot (not answered by the write itself or by what the
    /// writer remembers).
    let reads = ReadLog()
    /// Indexed values set (encoded) or removed with their child (nil), in order.
    private(set) var indexedValues: [(key: [UInt8], value: [UInt8]?)] = []
    /// An indexed value as the round's staged writes left it: nil when none of them changed
    /// it, `.some(nil)` when one removed the child.
    private let staged: (([UInt8]) -> [UInt8]??)?

    init(staged: (([UInt8]) -> [UInt8]??)? = nil) {
        self.staged = staged
    }

    /// The indexed value at entry identity `key` as the staged writes left it, or nil when
    /// none of them changed it (the write's pre-image or the snapshot then answers).
    func stagedValue(_ key: [UInt8]) -> [UInt8]?? {
        staged?(key)
    }

    func noteIndexedValue(_ key: [UInt8], _ value: [UInt8]?) {
        indexedValues.append((key, value))
    }
}
