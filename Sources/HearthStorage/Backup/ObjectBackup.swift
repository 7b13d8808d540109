import Foundation
public import HearthCore
public import HearthStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The objects' part of a backup (`BackupObjectSource`): the catalog at one moment (a snapshot
/// of its object records, taken at `init`), then each object's file streamed in records of
/// `BackupObjectRecord.maxBytes`, never more than one record in memory. Resumable sessions are
/// left out. Files are immutable per generation; one deleted or replaced after the snapshot
/// and before the backup reached it is gone, and its object is left out of the backup
/// (`skipped`), never carried without its bytes. A file shorter than its catalogued size stops
/// the backup (the store is damaged; `hearth doctor` names the object).
public final class ObjectBackup: BackupObjectSource, @unchecked Sendable {
    private let reader: KeyValueSnapshotReader
    private let files: ObjectFiles
    private let store: ObjectStore
    private var current: OpenObject?
    private var buffer: [UInt8]
    /// Objects left out because their file went after the snapshot.
    public private(set) var skipped = 0
    /// Objects carried.
    public private(set) var carried = 0

    private struct OpenObject {
        let descriptor: Int32
        let name: String
        let generation: [UInt8]
        var remaining: UInt64
    }

    /// Takes the snapshot of `store`'s catalog now.
    public init(store: ObjectStore) throws(StoreError) {
        reader = try store.catalog.database.snapshotReader(prefix: [ObjectCatalog.objectTag])
        files = store.files
        self.store = store
        buffer = [UInt8](repeating: 0, count: BackupObjectRecord.maxBytes)
    }

    deinit { close() }

    public func append(to chunk: inout BackupChunk, maxBytes: Int) throws(StoreError) -> Bool {
        while chunk.count < maxBytes {
            if var object = current {
                guard object.remaining > 0 else {
                    closeCurrent()
                    continue
                }
                let want = Int(min(object.remaining, UInt64(buffer.count)))
                let got = try read(object, count: want)
                buffer.withUnsafeBytes {
                    chunk.append(.bytes, key: object.generation, value: .init(rebasing: $0[0..<got]))
                }
                object.remaining -= UInt64(got)
                current = object
                continue
            }
            guard let (key, value) = try reader.next() else { return true }
            let object: ObjectMetadata
            do throws(StorageError) {
                object = try ObjectCatalog.decode(value)
            } catch {
                throw StoreError(.corrupt, error.message)
            }
            // A cluster node fetches what it has not cached yet (a version gone since: skipped).
            if store.isReplicated { _ = try? store.localPath(of: object) }
            let descriptor = open(files.path(of: object.generation), O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                guard errno == ENOENT else {
                    throw StoreError(.io, ObjectFiles.failure("open", files.path(of: object.generation)).message)
                }
                skipped += 1
                continue
            }
            value.withUnsafeBytes { chunk.append(.metadata, key: key, value: $0) }
            carried += 1
            current = OpenObject(
                descriptor: descriptor,
                name: "\(object.bucket)/\(object.name)",
                generation: Array(object.generation.utf8),
                remaining: object.size
            )
        }
        return false
    }

    public func close() {
        closeCurrent()
        reader.close()
    }

    /// Reads `count` bytes of `object` into `buffer`, all of them.
    private func read(_ object: OpenObject, count: Int) throws(StoreError) -> Int {
        var got = 0
        while got < count {
            let result = buffer.withUnsafeMutableBytes {
                systemRead(object.descriptor, $0.baseAddress! + got, count - got)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw StoreError(
                    .io,
                    "Cannot read the file of object '\(object.name)': \(String(cString: strerror(errno)))."
                )
            }
            guard result > 0 else {
                throw StoreError(
                    .damaged,
                    "The file of object '\(object.name)' is shorter than its catalogued size: the backup stopped. "
                        + "Run `hearth doctor` on the stopped data directory to see every damaged object."
                )
            }
            got += result
        }
        return got
    }

    private func closeCurrent() {
        guard let object = current else { return }
        current = nil
        systemCloseDescriptor(object.descriptor)
    }
}

private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, bytes, count)
}

extension ObjectStore {
    /// The objects' part of a backup, its snapshot taken now (`ObjectBackup`).
    public func backup() throws(StoreError) -> ObjectBackup { try ObjectBackup(store: self) }
}
