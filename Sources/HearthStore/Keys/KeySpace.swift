public import HearthCore

/// The key prefixes of one namespace (see the storage layout in docs/design.md).
struct KeySpace: Sendable {
    static let namespaceTable = UInt8(ascii: "N")
    static let sequenceTable = UInt8(ascii: "S")
    static let dataTable = UInt8(ascii: "D")
    static let indexTable = UInt8(ascii: "I")
    static let reverseTable = UInt8(ascii: "R")
    static let indexDefinitionTable = UInt8(ascii: "X")

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

    var sequenceKey: [UInt8] { KeySpace.prefix(KeySpace.sequenceTable, namespaceID) }

    /// The key of the leaf at `path`, which is also the prefix of its whole subtree.
    func dataKey(_ path: DataPath) -> [UInt8] {
        var out = dataPrefix
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

    func reversePrefix(_ indexID: UInt32) -> [UInt8] {
        var out = KeySpace.prefix(KeySpace.reverseTable, namespaceID)
        KeySpace.appendBigEndian(indexID, to: &out)
        return out
    }

    func indexDefinitionPrefix() -> [UInt8] {
        KeySpace.prefix(KeySpace.indexDefinitionTable, namespaceID)
    }
}
