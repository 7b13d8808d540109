import Dispatch
import Foundation
public import HearthCore
import Synchronization

/// An open Hearth data directory: one LevelDB database holding every namespace.
public final class Store: Sendable {
    let db: LevelDB
    public let configuration: StoreConfiguration
    let namespaces = Mutex<[String: NamespaceStore]>([:])
    /// Where the rounds of every replicated namespace's writer run, in turn (a cluster node's;
    /// no thread until one runs).
    private let replicatedRounds: SharedWriterThread
    /// The periodic mode's background sync (nil with `--sync always`).
    private let backgroundSync: BackgroundLogSync?
    /// The time of server timestamps and of the rules' `now` (the database reads it here).
    public let clock: ServerClock
    let namespaceIDs: NamespaceIDs

    private init(
        db: LevelDB,
        namespaceIDs: NamespaceIDs,
        configuration: StoreConfiguration,
        clock: ServerClock
    ) {
        self.db = db
        self.namespaceIDs = namespaceIDs
        self.configuration = configuration
        self.clock = clock
        replicatedRounds = SharedWriterThread(passEnded: configuration.replicatedPassEnded)
        if case .periodic(let milliseconds) = configuration.syncMode {
            backgroundSync = BackgroundLogSync(db: db, interval: milliseconds, label: "hearth.sync")
        } else {
            backgroundSync = nil
        }
    }

    /// Opens the store in `directory` with a clock given as a function (milliseconds since 1970).
    public static func open(
        directory: String,
        configuration: StoreConfiguration = .init(),
        clock: @escaping @Sendable () -> Double
    ) throws -> Store {
        try open(directory: directory, configuration: configuration, clock: ServerClock(milliseconds: clock))
    }

    /// Opens (creating when missing) the store in `directory`; `clock` stamps server values.
    public static func open(
        directory: String,
        configuration: StoreConfiguration = .init(),
        clock: ServerClock = .system
    ) throws -> Store {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.io, "Cannot create the data directory '\(directory)': \(error.localizedDescription)")
        }
        let db = try LevelDB(path: directory + "/db", writeBufferSize: configuration.writeBufferSize)
        let namespaceIDs: NamespaceIDs
        do {
            namespaceIDs = try db.withSnapshot { snapshot in
                NamespaceIDs(
                    storedNext: snapshot.get(KeySpace.nextNamespaceIDKey).map(KeySpace.decodeBigEndian),
                    registered: registeredNamespaces(snapshot).map(\.id)
                )
            }
        } catch {
            db.close()
            throw error
        }
        let store = Store(db: db, namespaceIDs: namespaceIDs, configuration: configuration, clock: clock)
        do {
            // Commit observers catch up at once, not when their namespace is next used.
            // (In a cluster a namespace opens only once the node owns it.)
            for name in try store.namespaceNames()
            where configuration.opens == nil && !configuration.triggers.observers(of: name).isEmpty {
                _ = try store.namespace(name)
            }
        } catch {
            store.close()
            throw error
        }
        return store
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

    /// The namespace named `name`. One that does not exist yet is made in memory only, with a
    /// fresh id: it reads as empty and is registered on disk by its first write (or
    /// `NamespaceStore.create()`), so reading it or being refused persists nothing.
    /// Throws for an invalid name.
    public func namespace(_ name: String) throws -> NamespaceStore {
        if let existing = namespaces.withLock({ $0[name] }) { return existing }
        try Store.validateNamespaceName(name)
        if let opens = configuration.opens, !opens(name) {
            throw StoreError(.notOwner, "Namespace '\(name)' is served by another node of the cluster; retry.")
        }
        return try namespaces.withLock { table in
            if let existing = table[name] { return existing }
            let namespace: NamespaceStore
            if let stored = try db.withSnapshot({ $0.get(KeySpace.namespaceKey(name)) }) {
                namespace = try makeNamespace(name, id: KeySpace.decodeBigEndian(stored), registration: nil)
            } else {
                let id = namespaceIDs.reserve()
                let registration = NamespaceRegistration(
                    name: name,
                    keys: KeySpace(namespaceID: id),
                    nextFreeID: { [namespaceIDs] in namespaceIDs.nextFree },
                    lookups: configuration.triggers.lookups(of: name)
                )
                namespace = try makeNamespace(name, id: id, registration: registration)
            }
            table[name] = namespace
            return namespace
        }
    }

    /// True when the namespace is open in this process or exists on disk; opens nothing.
    public func hasNamespace(_ name: String) throws -> Bool {
        if namespaces.withLock({ $0[name] != nil }) { return true }
        return try isCreated(name)
    }

    /// Whether namespace `name` exists on disk (from its first write or an admin's rules PUT);
    /// one only opened in memory does not.
    public func isCreated(_ name: String) throws -> Bool {
        try db.withSnapshot { $0.get(KeySpace.namespaceKey(name)) } != nil
    }

    private func makeNamespace(
        _ name: String,
        id: UInt32,
        registration: NamespaceRegistration?
    ) throws -> NamespaceStore {
        try NamespaceStore(
            name: name,
            id: id,
            db: db,
            configuration: configuration,
            clock: clock.now,
            registration: registration,
            replicatedRounds: replicatedRounds,
            onCommit: { [weak self] in self?.backgroundSync?.wrote() }
        )
    }

    /// Names of the namespaces that exist on disk (registered by a write, an import or
    /// `NamespaceStore.create()`).
    public func namespaceNames() throws -> [String] {
        try db.withSnapshot { Store.registeredNamespaces($0).map(\.name) }
    }

    static func registeredNamespaces(_ snapshot: Snapshot) -> [(name: String, id: UInt32)] {
        var namespaces: [(name: String, id: UInt32)] = []
        let prefix = [KeySpace.namespaceTable]
        let cursor = snapshot.makeIterator()
        cursor.seek(prefix)
        while cursor.hasPrefix(prefix) {
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: cursor.keyBytes[1...]), as: UTF8.self)
            namespaces.append((name, KeySpace.decodeBigEndian(cursor.valueBytes)))
            cursor.next()
        }
        return namespaces
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
        backgroundSync?.cancel()
        try? db.sync()
        db.close()
    }
}
