extension Store {
    /// The tables whose keys start with a namespace's id.
    private static let namespaceTables: [UInt8] = [
        KeySpace.sequenceTable, KeySpace.dataTable, KeySpace.indexTable, KeySpace.keptListTable,
        KeySpace.retiredReverseTable,
        KeySpace.indexDefinitionTable, KeySpace.onDisconnectTable, KeySpace.commitLogTable,
        KeySpace.observerCursorTable, KeySpace.lookupTable, KeySpace.lookupDefinitionTable,
    ]

    /// Each namespace's approximate size on disk: LevelDB's estimate of its keys in the table
    /// files (recent writes still only in the memtable and the log are not counted yet).
    public func approximateNamespaceSizes() throws -> [String: Int64] {
        let namespaces = try db.withSnapshot { Store.registeredNamespaces($0) }
        var ranges: [(start: [UInt8], limit: [UInt8])] = []
        for namespace in namespaces {
            for table in Self.namespaceTables {
                let prefix = KeySpace.prefix(table, namespace.id)
                // A table byte below 0xFF: the successor exists.
                ranges.append((prefix, KeyBytes.successor(of: prefix) ?? prefix))
            }
        }
        let sizes = try db.approximateSizes(ranges)
        var result: [String: Int64] = [:]
        for (index, namespace) in namespaces.enumerated() {
            let start = index * Self.namespaceTables.count
            let own = sizes[start..<(start + Self.namespaceTables.count)]
            result[namespace.name] = Int64(own.reduce(0, +))
        }
        return result
    }
}
