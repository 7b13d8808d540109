extension WriteLocations {
    /// True when a location of the write lies at, above or below the node whose data key is
    /// the namespace's data prefix followed by `fixed` (an index's or a pattern's part before
    /// its first wildcard; false means the write certainly leaves everything at and below that
    /// node alone). One binary search, no allocation: no location contains another, so one
    /// above it is the last location sorting before it and one at or below it the first not
    /// before it. A write that sets a priority answers true (its location is its owner's key,
    /// which sorts apart from the owner's children).
    func reaches(fixed: [UInt8], keys: KeySpace) -> Bool {
        guard !order.isEmpty else { return false }
        if located.isPriority.contains(true) { return true }
        let start = keys.dataPrefix.count
        let dataKeys = located.dataKeys
        let at = Self.lowerBound(of: fixed, in: order, keys: dataKeys, comparingFrom: start)
        if at < order.count, KeyBytes.nested(dataKeys[order[at]], from: start, fixed) { return true }
        return at > 0 && KeyBytes.nested(dataKeys[order[at - 1]], from: start, fixed)
    }

    /// The first position from `lowest` on in `sorted` (indexes into `keys`, in the byte order
    /// of their keys) whose key, from byte `start` on, does not sort before `key`.
    static func lowerBound(
        of key: [UInt8],
        in sorted: [Int],
        keys: [[UInt8]],
        from lowest: Int = 0,
        comparingFrom start: Int = 0
    ) -> Int {
        var (low, high) = (lowest, sorted.count)
        while low < high {
            let middle = (low + high) / 2
            if KeyBytes.precedes(keys[sorted[middle]], from: start, key) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
