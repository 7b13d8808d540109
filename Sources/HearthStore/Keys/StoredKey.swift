/// A LevelDB key as a dictionary key: hashed as one run of bytes and compared with `memcmp`
/// (`[UInt8]`'s own `Hashable` feeds the hasher one byte at a time, which the writer felt in
/// the indexed values a chat message's group keeps).
struct StoredKey: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    static func == (lhs: StoredKey, rhs: StoredKey) -> Bool {
        KeyBytes.equal(lhs.bytes, rhs.bytes)
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
