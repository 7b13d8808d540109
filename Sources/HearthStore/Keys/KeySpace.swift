import HearthCore

/// The key prefixes of one namespace (see the storage layout in docs/design.md).
struct KeySpace: Sendable {
    static let namespaceTable = UInt8(ascii: "N")
    static let sequenceTable = UInt8(ascii: "S")
    static let dataTable = UInt8(ascii: "D")
    static let indexTable = UInt8(ascii: "I")
    /// The reverse index entries of the layout before docs/decisions/0020: removed when a
    /// namespace opens (`NamespaceStore.removeRetiredReverseEntries`), never written.
    static let retiredReverseTable = UInt8(ascii: "R")
    static let indexDefinitionTable = UInt8(ascii: "X")
    static let onDisconnectTable = UInt8(ascii: "O")

    let namespaceID: UInt32
    let dataPrefix: [UInt8]

    init(namespaceID: UInt32) {
        self.namespaceID = namespaceID
        dataPrefix = KeySpace.prefix(KeySpace.dataTable, namespaceID)
    }

    static func prefix(_ table: UInt8, _ id: UInt32) -> [UInt8] {
        var out: [UInt8] = [table]
        appendBigEndian(id, to: &out)
        return out
    }

    static func appendBigEndian(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }

    static func namespaceKey(_ name: String) -> [UInt8] {
        [namespaceTable] + Array(name.utf8)
    }

    /// The next namespace id to hand out, as last registered (see `Store.open` for the id
    /// actually used).
    static let nextNamespaceIDKey: [UInt8] = Array("M.nextNamespaceID".utf8)

    static func decodeBigEndian(_ bytes: some Sequence<UInt8>) -> UInt32 {
        bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    var sequenceKey: [UInt8] { KeySpace.prefix(KeySpace.sequenceTable, namespaceID) }

    /// The key of the leaf at `path`, which is also the prefix of its whole subtree.
    func dataKey(_ path: DataPath) -> [UInt8] {
        // Allocated once, of its final size (a copy of the prefix would grow segment by segment).
        var out: [UInt8] = []
        out.reserveCapacity(dataPrefix.count + path.keys.reduce(0) { $0 + KeyEncoding.maxLength(of: $1) })
        out.append(contentsOf: dataPrefix)
        KeyEncoding.append(path, to: &out)
        return out
    }

    func priorityKey(_ path: DataPath) -> [UInt8] {
        var out = dataKey(path)
        out.append(KeyEncoding.priorityMarker)
        return out
    }

    func indexPrefix(_ indexID: UInt32) -> [UInt8] {
        var out = KeySpace.prefix(KeySpace.indexTable, namespaceID)
        KeySpace.appendBigEndian(indexID, to: &out)
        return out
    }

    /// Every retired reverse entry of the namespace (`retiredReverseTable`).
    var retiredReversePrefix: [UInt8] { KeySpace.prefix(KeySpace.retiredReverseTable, namespaceID) }

    /// The entry of `child` of `list` in index `indexID`, for an encoded index value.
    func indexEntryKey(_ indexID: UInt32, list: DataPath, value encoded: [UInt8], child: ChildKey) -> [UInt8] {
        var key = indexPrefix(indexID)
        KeyEncoding.append(list, to: &key)
        key.append(contentsOf: encoded)
        KeyEncoding.append(child, to: &key)
        return key
    }

    /// The onDisconnect records of the namespace (outside the data tree).
    var onDisconnectPrefix: [UInt8] { KeySpace.prefix(KeySpace.onDisconnectTable, namespaceID) }

    /// The records of one connection: its id, length-prefixed (so no id is a prefix of another's).
    func onDisconnectPrefix(connection: String) -> [UInt8] {
        var out = onDisconnectPrefix
        let bytes = Array(connection.utf8.prefix(Int(UInt16.max)))
        out.append(UInt8(truncatingIfNeeded: bytes.count >> 8))
        out.append(UInt8(truncatingIfNeeded: bytes.count))
        out += bytes
        return out
    }

    func onDisconnectKey(connection: String, position: UInt32) -> [UInt8] {
        var out = onDisconnectPrefix(connection: connection)
        KeySpace.appendBigEndian(position, to: &out)
        return out
    }

    /// The connection and position of an `onDisconnectKey`, or nil for another key.
    func onDisconnectRecord(_ key: UnsafeRawBufferPointer) -> (connection: String, position: UInt32)? {
        let start = onDisconnectPrefix.count
        guard key.count >= start + 2 + 4 else { return nil }
        let length = Int(key[start]) << 8 | Int(key[start + 1])
        let idStart = start + 2
        guard key.count == idStart + length + 4 else { return nil }
        let connection = String(
            decoding: UnsafeRawBufferPointer(rebasing: key[idStart..<(idStart + length)]),
            as: UTF8.self
        )
        let position = KeySpace.decodeBigEndian(key[(idStart + length)...])
        return (connection, position)
    }

    func indexDefinitionPrefix() -> [UInt8] {
        KeySpace.prefix(KeySpace.indexDefinitionTable, namespaceID)
    }
}
