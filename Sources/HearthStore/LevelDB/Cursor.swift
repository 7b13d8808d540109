import CLevelDB

#if canImport(Glibc)
import Glibc
#endif

/// A LevelDB iterator. `key`/`value` views are valid until the cursor moves.
final class Cursor {
    private let handle: OpaquePointer
    /// Told LevelDB's error when the iterator stops on one (a damaged block, an unreadable file).
    private let onFailure: (String) -> Void

    init(handle: OpaquePointer, onFailure: @escaping (String) -> Void) {
        self.handle = handle
        self.onFailure = onFailure
    }

    deinit {
        reportError()
        leveldb_iter_destroy(handle)
    }

    /// Reports the iterator's error, if it met one. LevelDB's iterator steps over a block it
    /// could not read (a checksum mismatch) to the next one and keeps the error: a scan that
    /// stayed valid may have skipped keys, so the error is checked when the cursor goes too.
    func reportError() {
        var error: UnsafeMutablePointer<CChar>?
        leveldb_iter_get_error(handle, &error)
        if let error {
            onFailure(String(cString: error))
            leveldb_free(error)
        }
    }

    /// False at the end of the keys, and when the iterator stopped on an error (reported).
    var isValid: Bool {
        if leveldb_iter_valid(handle) != 0 { return true }
        reportError()
        return false
    }

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
        hasPrefix(prefix, count: prefix.count)
    }

    /// True when the cursor is valid and its key starts with the first `count` bytes of `key`
    /// (an ancestor's data key within a descendant's, without copying it out).
    func hasPrefix(_ key: [UInt8], count: Int) -> Bool {
        precondition(count <= key.count, "a prefix longer than its key")
        guard isValid else { return false }
        let current = keyBytes
        guard current.count >= count else { return false }
        return key.withUnsafeBytes { p in memcmp(current.baseAddress!, p.baseAddress!, count) == 0 }
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
