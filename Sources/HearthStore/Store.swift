import Dispatch
import Foundation
public import HearthCore
import Synchronization

/// An open Hearth data directory: one LevelDB database holding every namespace.
public final class Store: Sendable {
    let db: LevelDB
    public let configuration: StoreConfiguration
    private let namespaces = Mutex<[String: NamespaceStore]>([:])
    private let dirty = Atomic<Bool>(false)
    nonisolated(unsafe) private let syncTimer: DispatchSourceTimer?
    private let clock: @Sendable () -> Double
    private static let nextNamespaceIDKey: [UInt8] = Array("M.nextNamespaceID".utf8)

    private init(db: LevelDB, configuration: StoreConfiguration, clock: @escaping @Sendable () -> Double) {
        self.db = db
        self.configuration = configuration
        self.clock = clock
        if case .periodic(let milliseconds) = configuration.syncMode {
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "hearth.sync", qos: .utility))
            timer.schedule(deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(milliseconds))
            syncTimer = timer
        } else {
            syncTimer = nil
        }
        syncTimer?.setEventHandler { [weak self] in self?.syncIfDirty() }
        syncTimer?.resume()
    }

    /// Opens (creating when missing) the store in `directory`.
    public static func open(
        directory: String,
        configuration: StoreConfiguration = .init(),
        clock: @escaping @Sendable () -> Double = NamespaceStore.systemClock
    ) throws -> Store {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.io, "Cannot create the data directory '\(directory)': \(error.localizedDescription)")
        }
        let db = try LevelDB(path: directory + "/db", writeBufferSize: configuration.writeBufferSize)
        return Store(db: db, configuration: configuration, clock: clock)
    }

    private func syncIfDirty() {
        if dirty.exchange(false, ordering: .acquiringAndReleasing) {
            do { try db.sync() } catch { dirty.store(true, ordering: .releasing) }
        }
    }

    /// Checks a namespace name: 1–63 letters, digits or `-`.
    public static func validateNamespaceName(_ name: String) throws {
        let valid =
            !name.isEmpty && name.utf8.count <= 63
            && name.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D
            }
        if !valid {
            throw StoreError(
                .invalidNamespace,
                "Invalid namespace '\(name)': a namespace name is 1 to 63 letters, digits or '-'."
            )
        }
    }

    /// The namespace named `name`, created on first use. Throws for an invalid name.
    public func namespace(_ name: String) throws -> NamespaceStore {
        if let existing = namespaces.withLock({ $0[name] }) { return existing }
        try Store.validateNamespaceName(name)
        return try namespaces.withLock { table in
            if let existing = table[name] { return existing }
            let key = KeySpace.namespaceKey(name)
            let id: UInt32
            if let stored = try db.withSnapshot({ $0.get(key) }) {
                id = stored.reduce(0) { $0 << 8 | UInt32($1) }
            } else {
                let next =
                    try db.withSnapshot { $0.get(Store.nextNamespaceIDKey) }.map {
                        $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                    } ?? 1
                id = next
                let batch = WriteBatch()
                var idBytes: [UInt8] = []
                KeySpace.appendBigEndian(id, to: &idBytes)
                var nextBytes: [UInt8] = []
                KeySpace.appendBigEndian(id + 1, to: &nextBytes)
                batch.put(key, idBytes)
                batch.put(Store.nextNamespaceIDKey, nextBytes)
                try db.write(batch, sync: true)
            }
            let namespace = try NamespaceStore(
                name: name,
                id: id,
                db: db,
                syncAlways: configuration.syncMode == .always,
                clock: clock,
                onCommit: { [weak self] in self?.dirty.store(true, ordering: .releasing) }
            )
            table[name] = namespace
            return namespace
        }
    }

    /// Names of the namespaces that exist.
    public func namespaceNames() throws -> [String] {
        try db.withSnapshot { snapshot in
            var names: [String] = []
            let prefix = [KeySpace.namespaceTable]
            let cursor = snapshot.makeIterator()
            cursor.seek(prefix)
            while cursor.hasPrefix(prefix) {
                names.append(String(decoding: UnsafeRawBufferPointer(rebasing: cursor.keyBytes[1...]), as: UTF8.self))
                cursor.next()
            }
            return names
        }
    }

    /// True when no namespace holds any data.
    public func isEmpty() throws -> Bool {
        try db.withSnapshot { snapshot in
            let prefix = [KeySpace.dataTable]
            let cursor = snapshot.makeIterator()
            cursor.seek(prefix)
            return !cursor.hasPrefix(prefix)
        }
    }

    /// Syncs and closes. Later calls fail with `StoreError.closed`.
    public func close() {
        syncTimer?.cancel()
        try? db.sync()
        db.close()
    }
}
