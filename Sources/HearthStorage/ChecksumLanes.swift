import Crypto
import Dispatch
import Synchronization

/// MD5 and CRC-32C of bytes as they are written, in two lanes: MD5 (the dearest part, 1.3 s of
/// a 1 GiB upload's 2.5 s of CPU) advances on a second thread while the caller's thread writes
/// and counts CRC-32C, so a large upload uses both cores. Used by one upload or chunk at a time.
final class ChecksumLanes: @unchecked Sendable {
    private var md5: Insecure.MD5
    private var crc: CRC32C
    private(set) var size: UInt64
    /// False once a write failed part-way: the checksums no longer describe what was written.
    private(set) var isValid = true

    /// Lanes that go on from `start` (what was counted of the same bytes before).
    init(from start: ObjectChecksums = ObjectChecksums()) {
        md5 = start.md5
        crc = start.crc
        size = start.size
    }

    /// What was counted.
    var checksums: ObjectChecksums { ObjectChecksums(md5: md5, crc: crc, size: size) }

    /// Writes `pieces` in order with `write`, counting them.
    /// - Throws: what `write` throws (the lanes are then no longer valid).
    func write(
        _ pieces: [UnsafeRawBufferPointer],
        with write: (UnsafeRawBufferPointer) throws(StorageError) -> Void
    ) throws(StorageError) {
        let failure = Mutex<StorageError?>(nil)
        // The pointers stay valid while both lanes run: `concurrentPerform` returns after them.
        let shared = SharedPieces(pieces: pieces)
        withoutActuallyEscaping(write) { write in
            let writer = SharedWriter(write: write)
            DispatchQueue.concurrentPerform(iterations: 2) { lane in
                if lane == 0 {
                    for piece in shared.pieces { md5.update(bufferPointer: piece) }
                    return
                }
                do throws(StorageError) {
                    for piece in shared.pieces {
                        try writer.write(piece)
                        crc.update(piece)
                    }
                } catch {
                    failure.withLock { $0 = error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) {
            isValid = false
            throw error
        }
        size += pieces.reduce(UInt64(0)) { $0 + UInt64($1.count) }
    }
}

/// The pieces both lanes read while the caller keeps them alive.
private struct SharedPieces: @unchecked Sendable {
    let pieces: [UnsafeRawBufferPointer]
}

/// The caller's write, called by the writing lane only while the caller waits.
private struct SharedWriter: @unchecked Sendable {
    let write: (UnsafeRawBufferPointer) throws(StorageError) -> Void
}

/// The checksums of resumable sessions' bytes so far, kept between their chunks so that a
/// finalize need not read the whole file again (inside the store's lock). An entry is used only
/// when it counted exactly the bytes the session holds; otherwise (after a restart, a chunk that
/// failed part-way) the finalize reads the file. At most one entry per live session.
final class RunningChecksums: Sendable {
    private let entries = Mutex<[String: ObjectChecksums]>([:])

    /// Takes session `id`'s entry out (a chunk or the finalize goes on from it).
    func take(_ id: String) -> ObjectChecksums? {
        entries.withLock { $0.removeValue(forKey: id) }
    }

    /// Keeps `checksums` for session `id`.
    func keep(_ checksums: ObjectChecksums, for id: String) {
        entries.withLock { $0[id] = checksums }
    }

    /// Forgets every entry but those of `ids`.
    func keepOnly(_ ids: Set<String>) {
        entries.withLock { entries in entries = entries.filter { ids.contains($0.key) } }
    }
}
