import HearthCore

/// The keys of lookup indexes (see "Storage layout" in docs/design.md):
/// `P` + nsId(4) + name length(1) + name + term (UTF-8) + `0x00` + encoded location → empty,
/// and the definition `Q` + nsId(4) + name (UTF-8) → the version, decimal.
extension KeySpace {
    static let lookupTable = UInt8(ascii: "P")
    static let lookupDefinitionTable = UInt8(ascii: "Q")

    /// The prefix of every entry of the index whose length-prefixed name is `name`.
    func lookupPrefix(_ name: [UInt8]) -> [UInt8] {
        KeySpace.prefix(KeySpace.lookupTable, namespaceID) + name
    }

    /// The prefix of the entries of `term` (exactly that term).
    func lookupTermPrefix(_ name: [UInt8], term: [UInt8]) -> [UInt8] {
        lookupPrefix(name) + term + [0]
    }

    /// The entry of `location` under `term`.
    func lookupEntryKey(_ name: [UInt8], term: [UInt8], location: DataPath) -> [UInt8] {
        var key = lookupTermPrefix(name, term: term)
        KeyEncoding.append(location, to: &key)
        return key
    }

    /// The prefix of every lookup definition of the namespace.
    var lookupDefinitionPrefix: [UInt8] { KeySpace.prefix(KeySpace.lookupDefinitionTable, namespaceID) }

    func lookupDefinitionKey(_ name: String) -> [UInt8] {
        lookupDefinitionPrefix + Array(name.utf8)
    }
}
