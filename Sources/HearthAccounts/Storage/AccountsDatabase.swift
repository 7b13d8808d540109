import Dispatch
import Foundation
import HearthCore
import HearthStore
import Synchronization

/// The accounts' key layout over their own LevelDB database (the store's `KeyValueDatabase`),
/// with one serial writer so that a read-check-write (is this email taken?) is atomic.
///
/// Keys: `a/<uid>` account JSON, `e/<email>` uid, `r/<sha256(refresh token)>` refresh record,
/// `t/<uid>/<sha256>` a user's refresh tokens, `o/<sha256(code)>` reset code, `d/<uid>`
/// tombstone of a deleted account; in a cluster, `z/position`: the position in the cluster's
/// accounts log (`SharedLog`, stream `accounts`) of the last batch this copy holds.
final class AccountsDatabase: Sendable {
    let file: AccountsFile
    private let writer = DispatchQueue(label: "hearth.accounts.writer")
    /// In a cluster: the shared log and this copy's place in it (touched on the writer only).
    private let replica = Mutex<Replica?>(nil)
    /// How often a write whose position another node took first is tried again.
    static let maxAppendAttempts = 32

    init(directory: String) throws(AccountsError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .storage("Cannot create the accounts directory '\(directory)': \(error.localizedDescription)")
        }
        file = try AccountsFile(path: directory + "/db")
    }

    static func accountKey(_ uid: String) -> String { "a/" + uid }
    static func emailKey(_ email: String) -> String { "e/" + email }
    static func refreshKey(_ digest: String) -> String { "r/" + digest }
    static func userRefreshKey(_ uid: String, _ digest: String) -> String { "t/\(uid)/\(digest)" }
    static func resetKey(_ digest: String) -> String { "o/" + digest }
    static func tombstoneKey(_ uid: String) -> String { "d/" + uid }
    static let positionKey = "z/position"

    // MARK: reads (any thread)

    func account(uid: String) -> AccountRecord? { decode(file.get(Self.accountKey(uid))) }

    /// Whether `uid` has an account that is not disabled, without decoding the whole record
    /// (its password hash included): the record's JSON is read for its `disabled` field only.
    func isActive(uid: String) -> Bool {
        guard let bytes = file.get(Self.accountKey(uid)), let record = try? JSONParser.parse(bytes) else {
            return false
        }
        return record["disabled"]?.boolValue != true
    }

    func uid(email: String) -> String? { file.get(Self.emailKey(email)).map { String(decoding: $0, as: UTF8.self) } }

    func account(email: String) -> AccountRecord? { uid(email: email).flatMap(account(uid:)) }

    func refreshRecord(digest: String) -> RefreshRecord? { decode(file.get(Self.refreshKey(digest))) }

    func resetRecord(digest: String) -> ResetCodeRecord? { decode(file.get(Self.resetKey(digest))) }

    func allAccounts() -> [AccountRecord] { file.scan(prefix: "a/").compactMap { decode($0.value) } }

    /// Decodes the account JSON of an `a/<uid>` row.
    func decodeAccount(_ bytes: [UInt8]) -> AccountRecord? { decode(bytes) }

    func tombstones() -> [(uid: String, tombstone: Tombstone)] {
        file.scan(prefix: "d/").compactMap { row in
            decode(row.value).map { (String(row.key.dropFirst(2)), $0) }
        }
    }

    func refreshDigests(uid: String) -> [String] {
        let prefix = "t/\(uid)/"
        return file.scan(prefix: prefix).map { String($0.key.dropFirst(prefix.count)) }
    }

    // MARK: writes (serialised)

    /// Runs `body` on the writer queue and applies the changes it collects in one atomic batch.
    /// In a cluster the batch is appended to the accounts' log first, after this copy caught up
    /// with it: `body` runs again (on the newer state) when another node took the position.
    func write<T: Sendable>(
        sync: Bool = true,
        _ body: @escaping @Sendable (inout Changes) throws(AccountsError) -> T
    ) async throws(AccountsError) -> T {
        try await onWriter { () throws(AccountsError) -> T in try self.commit(sync: sync, body) }
    }

    /// Runs `work` on the writer queue.
    private func onWriter<T: Sendable>(
        _ work: @escaping @Sendable () throws(AccountsError) -> T
    ) async throws(AccountsError) -> T {
        let result: Result<T, AccountsError> = await withCheckedContinuation { continuation in
            writer.async {
                do throws(AccountsError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    private func commit<T>(
        sync: Bool,
        _ body: (inout Changes) throws(AccountsError) -> T
    ) throws(AccountsError) -> T {
        guard let log = replica.withLock({ $0?.follower.log }) else {
            var changes = Changes()
            let value = try body(&changes)
            if !changes.entries.isEmpty { try file.apply(changes.entries, sync: sync) }
            for action in changes.committed { action() }
            return value
        }
        for _ in 0..<Self.maxAppendAttempts {
            try catchUp()
            var changes = Changes()
            let value = try body(&changes)
            if !changes.entries.isEmpty {
                let position = (replica.withLock { $0?.position } ?? 0) + 1
                let appended: Bool
                do {
                    appended = try log.append(Self.encode(changes.entries), at: position)
                } catch {
                    throw Self.unavailable(error)
                }
                guard appended else { continue }
                // The log holds it: a failure here leaves the copy behind, and the next
                // catch-up applies the batch from the log.
                try file.apply(changes.entries + [(Self.positionKey, Array(String(position).utf8))], sync: false)
                replica.withLock { $0?.position = position }
                snapshotIfDue(at: position)
            }
            for action in changes.committed { action() }
            return value
        }
        throw AccountsError(.unavailable, "Other nodes kept changing the accounts first; retry.")
    }

    // MARK: the cluster's log

    /// A cluster copy: the follower of its log and the position of the last of the log's
    /// batches this copy holds; `observe` hears every batch applied from the log (another
    /// node's, or the difference a snapshot made), with each key's value before it.
    struct Replica {
        let follower: SharedLogFollower
        var position: Int64
        let observe: @Sendable ([ReplicatedChange]) -> Void
    }

    /// One key an applied log batch changed.
    struct ReplicatedChange {
        var key: String
        var before: [UInt8]?
        var after: [UInt8]?
    }

    var isReplicated: Bool { replica.withLock { $0 != nil } }

    /// Makes this database a copy of `log`. A copy of another log (its last position is not
    /// there, or was compacted away) is cleared; a database that never was a copy seeds an
    /// empty log with everything it holds (a single node that joins a new cluster keeps its
    /// accounts), else it is cleared. Then it catches up (from the log's snapshot when the
    /// entries it needs are gone). Every `snapshotEntries` entries a node stores a snapshot and
    /// the log drops what it no longer needs (`SharedLogFollower`).
    func replicate(
        through log: any SharedLog,
        snapshotEntries: Int64,
        observe: @escaping @Sendable ([ReplicatedChange]) -> Void
    ) async throws(AccountsError) {
        try await onWriter { () throws(AccountsError) in
            let stored = self.file.get(Self.positionKey).flatMap { Int64(String(decoding: $0, as: UTF8.self)) }
            let follower = SharedLogFollower(log: log, snapshotEntries: snapshotEntries)
            let rows = stored == nil ? self.sharedRows() : []
            var position: Int64 = 0
            do {
                switch try follower.start(
                    stored: stored,
                    hasRows: !rows.isEmpty,
                    seed: { try log.append(SharedLogBatch.encode(rows), at: 1) }
                ) {
                case .follow(let stored):
                    position = stored
                case .seeded:
                    try self.file.apply([(Self.positionKey, Array("1".utf8))], sync: true)
                    position = 1
                case .clear:
                    try self.clear()
                }
            } catch let error as AccountsError {
                throw error
            } catch {
                throw Self.unavailable(error)
            }
            self.replica.withLock { $0 = Replica(follower: follower, position: position, observe: observe) }
            try self.catchUp()
        }
    }

    /// Applies the log's batches this copy does not hold yet (a no-op outside a cluster).
    func synchronize() async throws(AccountsError) {
        guard isReplicated else { return }
        try await onWriter { () throws(AccountsError) in try self.catchUp() }
    }

    /// Waits for a snapshot of the accounts' log being stored (tests).
    func waitForSnapshots() {
        replica.withLock { $0?.follower }?.waitForSnapshots()
    }

    /// On the writer: applies every batch after this copy's position, in order.
    private func catchUp() throws(AccountsError) {
        guard let (follower, start, observe) = replica.withLock({ $0.map { ($0.follower, $0.position, $0.observe) } })
        else { return }
        do {
            _ = try follower.catchUp(from: start, rows: sharedRows) { changes, position in
                let observed = changes.map { change in
                    let key = String(decoding: change.key, as: UTF8.self)
                    return ReplicatedChange(key: key, before: file.get(key), after: change.value)
                }
                let entries = observed.map { (key: $0.key, value: $0.after) }
                try file.apply(entries + [(Self.positionKey, Array(String(position).utf8))], sync: false)
                replica.withLock { $0?.position = position }
                observe(observed)
            }
        } catch let error as AccountsError {
            throw error
        } catch let error as SharedLogFollower.Unreadable {
            throw .storage(
                "The cluster's accounts log has no readable batch at position \(error.position); this node cannot serve accounts."
            )
        } catch {
            throw Self.unavailable(error)
        }
    }

    /// On the writer, at `position` (this copy's own append): hands the follower this copy's rows
    /// when the log is due a snapshot.
    private func snapshotIfDue(at position: Int64) {
        replica.withLock { $0?.follower }?.snapshotIfDue(at: position, rows: sharedRows)
    }

    /// Every row of the copy but its position, in key order.
    private func sharedRows() -> [SharedLogBatch.Change] {
        file.scan(prefix: "").compactMap { row in
            row.key == Self.positionKey ? nil : (key: Array(row.key.utf8), value: Optional(row.value))
        }
    }

    /// Deletes every key (a copy that cannot follow its log starts again from the log).
    private func clear() throws(AccountsError) {
        let keys = file.scan(prefix: "").map { (key: $0.key, value: [UInt8]?.none) }
        if !keys.isEmpty { try file.apply(keys, sync: true) }
    }

    /// A batch of string-keyed changes in the shared log's layout (`SharedLogBatch`).
    static func encode(_ changes: [(key: String, value: [UInt8]?)]) -> [UInt8] {
        SharedLogBatch.encode(changes.map { (Array($0.key.utf8), $0.value) })
    }

    static func unavailable(_ error: any Error) -> AccountsError {
        AccountsError(.unavailable, "The cluster's accounts log did not answer (\(error)); retry.")
    }

    /// The puts and deletes of one batch.
    struct Changes {
        fileprivate(set) var entries: [(key: String, value: [UInt8]?)] = []
        /// Run on the writer's queue once the batch is applied, before the next batch: what
        /// must follow the commits in their order (the revocation registry).
        fileprivate(set) var committed: [@Sendable () -> Void] = []

        mutating func onCommit(_ action: @escaping @Sendable () -> Void) { committed.append(action) }

        mutating func put<Value: Encodable>(_ key: String, _ value: Value) throws(AccountsError) {
            do {
                entries.append((key, Array(try JSONEncoder().encode(value))))
            } catch {
                throw .storage("Cannot encode '\(key)': \(error)")
            }
        }

        mutating func put(_ key: String, text: String) { entries.append((key, Array(text.utf8))) }

        mutating func delete(_ key: String) { entries.append((key, nil)) }
    }

    private func decode<Value: Decodable>(_ bytes: [UInt8]?) -> Value? {
        guard let bytes else { return nil }
        return try? JSONDecoder().decode(Value.self, from: Data(bytes))
    }

    func close() { file.close() }
}
