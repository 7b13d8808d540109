import Crypto
import Foundation
public import HearthCore
public import HearthStore

/// The objects' part of a restore (`BackupObjectSink`), into `<data>/storage` of a new data
/// directory: each object's bytes stream into a part file (`tmp/`), which is fsynced and
/// renamed into `objects/` under the same generation once its catalogued size arrived; the
/// catalog records (metadata, download tokens, MD5 and CRC-32C as they were) are committed in
/// batches, the last one synced, after the files they name. An object whose bytes do not hash
/// to its catalogued MD5 (it was damaged on the backed-up server) is restored as it was and
/// named in `mismatched`, for `hearth doctor` to find too.
public final class ObjectRestore: BackupObjectSink, @unchecked Sendable {
    private let root: String
    private var files: ObjectFiles?
    private var catalog: ObjectCatalog?
    private var current: Incoming?
    private var pending: [ObjectMetadata] = []
    /// Objects restored.
    public private(set) var restored = 0
    /// Their bytes.
    public private(set) var bytes: UInt64 = 0
    /// `bucket/name` of each object whose bytes do not match its catalogued MD5.
    public private(set) var mismatched: [String] = []

    /// The object whose bytes are coming. Only MD5 is counted (CRC-32C comes with the
    /// metadata and costs as much again).
    private struct Incoming {
        let object: ObjectMetadata
        let part: PartFile
        var md5 = Insecure.MD5()
        var size: UInt64 = 0
    }

    /// Restores into `<dataDirectory>/storage`, made when the first object comes.
    public init(dataDirectory: String) {
        root = dataDirectory + "/storage"
    }

    deinit { close() }

    public func take(_ record: BackupObjectRecord, key: [UInt8], value: [UInt8]) throws(StoreError) {
        do throws(StorageError) {
            switch record {
            case .metadata: try begin(key: key, value: value)
            case .bytes: try append(generation: key, value)
            }
        } catch {
            throw StoreError(error.code == .io ? .io : .corrupt, error.message)
        }
    }

    public func finish() throws(StoreError) {
        do throws(StorageError) {
            try finishCurrent()
            try files?.syncObjects()
            try flush(sync: true)
        } catch {
            throw StoreError(error.code == .io ? .io : .corrupt, error.message)
        }
        close()
    }

    public func close() {
        current?.part.discard()
        current = nil
        catalog?.close()
        catalog = nil
    }

    private func begin(key: [UInt8], value: [UInt8]) throws(StorageError) {
        try finishCurrent()
        let object = try ObjectCatalog.decode(value)
        guard key.first == ObjectCatalog.objectTag,
            let bucket = try? BucketName(object.bucket), let name = try? ObjectName(object.name),
            key == Array(ObjectCatalog.objectKey(bucket, name.value)),
            !object.generation.isEmpty, object.generation.allSatisfy(\.isASCIIDigit)
        else {
            throw StorageError(.invalidMetadata, "The backup holds an object record that is not one.")
        }
        let files = try openFiles()
        current = Incoming(object: object, part: try files.create(object.generation))
    }

    private func append(generation: [UInt8], _ value: [UInt8]) throws(StorageError) {
        guard var incoming = current, generation == Array(incoming.object.generation.utf8) else {
            throw StorageError(.invalidMetadata, "The backup holds an object's bytes without its record.")
        }
        guard incoming.size + UInt64(value.count) <= incoming.object.size else {
            throw StorageError(
                .invalidMetadata,
                "The backup holds more bytes for '\(incoming.object.name)' than its \(incoming.object.size)."
            )
        }
        try value.withStorageBytes { bytes throws(StorageError) in
            try incoming.part.write(bytes)
            incoming.md5.update(bufferPointer: bytes)
            incoming.size += UInt64(bytes.count)
        }
        current = incoming
    }

    private func finishCurrent() throws(StorageError) {
        guard let incoming = current else { return }
        let object = incoming.object
        guard incoming.size == object.size else {
            throw StorageError(
                .invalidMetadata,
                "The backup holds \(incoming.size) bytes for '\(object.name)', not its \(object.size)."
            )
        }
        if Data(incoming.md5.finalize()).base64EncodedString() != object.md5Hash {
            mismatched.append("\(object.bucket)/\(object.name)")
        }
        try openFiles().install(incoming.part, as: object.generation, syncingDirectory: false)
        incoming.part.close()
        current = nil
        // Flushed before, not after: the last batch is never empty, so `finish` syncs one.
        if pending.count >= 1000 { try flush(sync: false) }
        pending.append(object)
        restored += 1
        bytes += object.size
    }

    /// Commits the pending catalog records (their files are renamed in; a sync first makes the
    /// renames durable).
    private func flush(sync: Bool) throws(StorageError) {
        guard !pending.isEmpty else { return }
        if catalog == nil { catalog = try ObjectCatalog(path: root + "/db", syncMode: .periodic(milliseconds: 100)) }
        try catalog?.restore(pending, sync: sync)
        pending = []
    }

    private func openFiles() throws(StorageError) -> ObjectFiles {
        if let files { return files }
        let made = try ObjectFiles(root: root)
        files = made
        return made
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
