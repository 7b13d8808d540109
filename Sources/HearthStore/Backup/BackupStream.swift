import Crypto
import Foundation
public import HearthCore
import Synchronization

/// A backup being read: a LevelDB snapshot of the store (every namespace at one moment), one of
/// the accounts' database and, when given, Firebase Storage's objects (`BackupObjectSource`),
/// streamed in chunks (`BackupFormat`) while writes go on. Used by one caller at a time;
/// `close()` (or the last reference going) releases the snapshots, which the store's `close()`
/// waits for.
public final class BackupStream: @unchecked Sendable {
    public let header: BackupHeader
    private var parts: [Part]
    private var started = false
    private var finished = false
    /// Set when a snapshot read failed (a damaged block): the stream stopped without its end
    /// record, so no restore takes what was sent for a whole backup.
    public var failure: StoreError? { lock.withLock { failed } }
    private var failed: StoreError?
    private var hasher = SHA256()
    private var records: UInt64 = 0
    private let lock = NSLock()

    private enum Part {
        case levelDB(BackupFormat.Tag, SnapshotReading)
        case file(name: String, bytes: [UInt8])
        case objects(any BackupObjectSource)
    }

    /// A snapshot and the cursor walking it; `release()` drops the cursor, then the snapshot.
    private final class SnapshotReading {
        let db: LevelDB
        let snapshot: Snapshot
        var cursor: Cursor?

        init(db: LevelDB, snapshot: Snapshot) {
            self.db = db
            self.snapshot = snapshot
            let cursor = snapshot.makeIterator()
            cursor.seek([])
            self.cursor = cursor
        }

        func release() {
            guard cursor != nil else { return }
            cursor = nil
            db.releaseSnapshot(snapshot)
        }
    }

    /// Takes the snapshots now.
    /// - Parameter accounts: the accounts' database, when the backup carries them.
    /// - Parameter files: data directory files to carry (names from `BackupFormat.fileNames`).
    /// - Parameter objects: makes the objects' source (taking its snapshot) right after the
    ///   store's and the accounts' snapshots, when the backup carries objects.
    public init(
        store: Store,
        accounts: KeyValueDatabase?,
        files: [(name: String, bytes: [UInt8])] = [],
        objects: (() throws -> any BackupObjectSource)? = nil
    ) throws {
        let snapshot = try store.db.makeSnapshot()
        var namespaces: [String: UInt64] = [:]
        for (name, id) in Store.registeredNamespaces(snapshot) {
            namespaces[name] =
                snapshot.get(KeySpace(namespaceID: id).sequenceKey).map(NamespaceStore.decodeSequence) ?? 0
        }
        header = BackupHeader(createdAt: ServerClock.system.now(), namespaces: namespaces)
        let storeReading = SnapshotReading(db: store.db, snapshot: snapshot)
        var parts: [Part] = [.levelDB(.store, storeReading)]
        if let accounts {
            do {
                let accountsSnapshot = try accounts.levelDB.makeSnapshot()
                parts.append(.levelDB(.accounts, SnapshotReading(db: accounts.levelDB, snapshot: accountsSnapshot)))
            } catch {
                storeReading.release()
                throw error
            }
        }
        for file in files {
            precondition(BackupFormat.fileNames.contains(file.name), "not a file a backup carries: \(file.name)")
            parts.append(.file(name: file.name, bytes: file.bytes))
        }
        if let objects {
            do {
                parts.append(.objects(try objects()))
            } catch {
                for case .levelDB(_, let reading) in parts { reading.release() }
                throw error
            }
        }
        self.parts = parts
    }

    deinit { releaseAll() }

    /// The next chunk of about `maxBytes` (more when one record is larger), or nil after the end.
    public func next(maxBytes: Int = 1 << 20) -> [UInt8]? {
        lock.withLock { () -> [UInt8]? in
            guard !finished else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(maxBytes + 4096)
            if !started {
                started = true
                out += BackupFormat.magic
                out.append(BackupFormat.version)
                var json: [UInt8] = []
                JSONRenderer.render(headerJSON(), into: &json)
                BackupFormat.appendVarint(json.count, to: &out)
                out += json
            }
            while out.count < maxBytes, let part = parts.first {
                switch part {
                case .levelDB(let tag, let reading):
                    if let cursor = reading.cursor {
                        while out.count < maxBytes && cursor.isValid {
                            BackupFormat.appendRecord(tag, key: cursor.keyBytes, value: cursor.valueBytes, to: &out)
                            records += 1
                            cursor.next()
                        }
                        if cursor.isValid { continue }
                    }
                    if let fault = reading.snapshot.readFault {
                        failed = fault.damage()
                        finished = true
                        releaseAll()
                        return out
                    }
                    parts.removeFirst()
                    reading.release()
                case .file(let name, let bytes):
                    Array(name.utf8).withUnsafeBytes { key in
                        bytes.withUnsafeBytes { BackupFormat.appendRecord(.file, key: key, value: $0, to: &out) }
                    }
                    records += 1
                    parts.removeFirst()
                case .objects(let source):
                    var chunk = BackupChunk(bytes: [])
                    swap(&chunk.bytes, &out)
                    let done: Bool
                    do throws(StoreError) {
                        done = try source.append(to: &chunk, maxBytes: maxBytes)
                    } catch {
                        swap(&chunk.bytes, &out)
                        records += chunk.records
                        failed = error
                        finished = true
                        releaseAll()
                        return out
                    }
                    swap(&chunk.bytes, &out)
                    records += chunk.records
                    if done {
                        parts.removeFirst()
                        source.close()
                    }
                }
            }
            if parts.isEmpty {
                hasher.update(data: out)
                out.append(BackupFormat.Tag.end.rawValue)
                for shift in stride(from: 56, through: 0, by: -8) {
                    out.append(UInt8(truncatingIfNeeded: records >> UInt64(shift)))
                }
                out += Array(hasher.finalize())
                finished = true
                return out
            }
            hasher.update(data: out)
            return out
        }
    }

    /// Releases the snapshots; `next` answers nil from then on.
    public func close() {
        lock.withLock {
            finished = true
            releaseAll()
        }
    }

    private func releaseAll() {
        for part in parts {
            switch part {
            case .levelDB(_, let reading): reading.release()
            case .objects(let source): source.close()
            case .file: break
            }
        }
        parts = []
    }

    private func headerJSON() -> JSONValue {
        let namespaces = header.namespaces.sorted { $0.key < $1.key }.map {
            ($0.key, JSONValue.number(Double($0.value)))
        }
        return .object([
            ("format", "hearth-backup"), ("createdAt", .number(header.createdAt)), ("namespaces", .object(namespaces)),
        ])
    }
}
