import CLevelDB

#if canImport(Glibc)
import Glibc
#endif

/// A LevelDB iterator. `key`/`value` views are valid until the cursor moves.
final class Cursor {
    private let handle: OpaquePointer

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        leveldb_iter_destroy(handle)
    }

    var isValid: Bool { leveldb_iter_valid(handle) != 0 }

    func seek(_ key: [UInt8]) {
        key.withUnsafeBufferPointer { k in
            k.withMemoryRebound(to: CChar.self) { leveldb_iter_seek(handle, $0.baseAddress, $0.count) }
        }
    }

    func seekToLast() { leveldb_iter_seek_to_last(handle) }
    func next() { leveldb_iter_next(handle) }
    func previous() { leveldb_iter_prev(handle) }

    /// The current key, borrowed.
    var keyBytes: UnsafeRawBufferPointer {
        var length = 0
        let pointer = leveldb_iter_key(handle, &length)
        return UnsafeRawBufferPointer(start: pointer, count: length)
    }

    /// The current value, borrowed.
    var valueBytes: UnsafeRawBufferPointer {
        var length = 0
        let pointer = leveldb_iter_value(handle, &length)
        return UnsafeRawBufferPointer(start: pointer, count: length)
    }

    /// True when the cursor is valid and its key starts with `prefix`.
    func hasPrefix(_ prefix: [UInt8]) -> Bool {
        guard isValid else { return false }
        let key = keyBytes
        guard key.count >= prefix.count else { return false }
        return prefix.withUnsafeBytes { p in memcmp(key.baseAddress!, p.baseAddress!, prefix.count) == 0 }
    }

    /// Positions at the last key that starts with `prefix` (invalid when none).
    func seekToLast(withPrefix prefix: [UInt8]) {
        if let successor = KeyBytes.successor(of: prefix) {
            seek(successor)
            if isValid { previous() } else { seekToLast() }
        } else {
            seekToLast()
        }
    }
}
