import HearthCore

extension WriteLocations {
    /// False when no location of the write lies at, above or below the literal keys `pattern`
    /// starts with (so none reaches it); true when one may. Two binary searches over the sorted
    /// keys per ancestor level, where `Write.reaches` walks every entry's path: a chat message's
    /// hundreds of derived counters are checked against each lookup index of the namespace.
    func mayReach(_ pattern: TriggerPattern, keys: KeySpace) -> Bool {
        var literal: [ChildKey] = []
        for segment in pattern.segments {
            guard case .key(let key) = segment else { break }
            literal.append(key)
        }
        guard !literal.isEmpty, !order.isEmpty else { return true }
        let prefix = keys.dataKey(DataPath(keys: literal))
        let sorted = located.dataKeys
        // The first location whose key does not sort before `prefix`.
        func lowerBound(_ key: [UInt8]) -> Int {
            var (low, high) = (0, order.count)
            while low < high {
                let middle = (low + high) / 2
                if KeyBytes.precedes(sorted[order[middle]], key) { low = middle + 1 } else { high = middle }
            }
            return low
        }
        // A location below the prefix (or at it).
        let first = lowerBound(prefix)
        if first < order.count, KeyBytes.hasPrefix(sorted[order[first]], prefix) { return true }
        // A location above it: an ancestor's key, exactly (the root's, then one segment more
        // at a time).
        var end = keys.dataKey(.root).count
        while true {
            let ancestor = Array(prefix[..<end])
            let at = lowerBound(ancestor)
            if at < order.count, KeyBytes.equal(sorted[order[at]], ancestor) { return true }
            guard let next = prefix.withUnsafeBytes({ KeyEncoding.segmentEnd($0, from: end) }), next < prefix.count
            else { return false }
            end = next
        }
    }
}
