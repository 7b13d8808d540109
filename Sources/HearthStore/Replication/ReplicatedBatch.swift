import HearthCore

/// A namespace's batch as the cluster's changelog holds it: every put and delete of the
/// namespace's keys with the node's namespace id taken out, so that any node replays it under
/// its own id. The store-wide keys a first write carries (the `N` entry, `M.nextNamespaceID`)
/// are each node's own and left out.
///
/// Format: a version byte (1), then per operation: 1 (put) or 2 (delete), the key's length
/// (LEB128), the key without its 4 id bytes (table byte, then the rest), and for a put the
/// value's length (LEB128) and the value.
enum ReplicatedBatch {
    static let version: UInt8 = 1
    private static let put: UInt8 = 1
    private static let delete: UInt8 = 2

    /// `batch` for the changelog; nil when it holds none of the namespace's keys.
    static func encode(_ batch: WriteBatch, keys: KeySpace) -> [UInt8]? {
        var out: [UInt8] = [version]
        out.reserveCapacity(batch.byteSize)
        var operations = 0
        let id = KeySpace.prefix(0, keys.namespaceID).dropFirst()
        batch.forEachOperation { key, value in
            guard let table = key.first, table != KeySpace.namespaceTable, !isStoreWide(key) else { return }
            precondition(
                key.count >= 5 && key[1..<5].elementsEqual(id),
                "a namespace's writer wrote a key of another namespace"
            )
            out.append(value == nil ? delete : put)
            appendLength(key.count - 4, to: &out)
            out.append(table)
            out.append(contentsOf: key[5...])
            if let value {
                appendLength(value.count, to: &out)
                out.append(contentsOf: value)
            }
            operations += 1
        }
        return operations == 0 ? nil : out
    }

    /// The batch `bytes` describes, with `keys`' namespace id put back into each key.
    static func decode(_ bytes: [UInt8], into keys: KeySpace) throws -> WriteBatch {
        guard bytes.first == version else {
            throw StoreError(.corrupt, "A changelog entry has an unknown format (version \(bytes.first ?? 0)).")
        }
        let batch = WriteBatch()
        let id = Array(KeySpace.prefix(0, keys.namespaceID).dropFirst())
        var position = 1
        while position < bytes.count {
            let operation = bytes[position]
            position += 1
            guard operation == put || operation == delete else {
                throw StoreError(.corrupt, "A changelog entry holds an unknown operation \(operation).")
            }
            let keyLength = try readLength(bytes, &position)
            guard keyLength >= 1, keyLength <= bytes.count - position else {
                throw StoreError(.corrupt, "A changelog entry's key runs past its end.")
            }
            var key: [UInt8] = []
            key.reserveCapacity(keyLength + 4)
            key.append(bytes[position])
            key.append(contentsOf: id)
            key.append(contentsOf: bytes[position + 1..<position + keyLength])
            position += keyLength
            if operation == delete {
                batch.delete(key)
                continue
            }
            let valueLength = try readLength(bytes, &position)
            guard valueLength <= bytes.count - position else {
                throw StoreError(.corrupt, "A changelog entry's value runs past its end.")
            }
            batch.put(key, Array(bytes[position..<position + valueLength]))
            position += valueLength
        }
        return batch
    }

    /// `M.…`: store-wide settings, not a namespace's.
    private static func isStoreWide(_ key: UnsafeRawBufferPointer) -> Bool {
        key.count >= 2 && key[0] == UInt8(ascii: "M") && key[1] == UInt8(ascii: ".")
    }

    private static func appendLength(_ length: Int, to out: inout [UInt8]) {
        var rest = UInt64(length)
        while rest >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    private static func readLength(_ bytes: [UInt8], _ position: inout Int) throws -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count, shift < 35 {
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return Int(value) }
            shift += 7
        }
        throw StoreError(.corrupt, "A changelog entry's length is cut or too long.")
    }
}
