import Dispatch
import Foundation
import HearthCore
import HearthStore

/// The accounts' key layout over their own LevelDB database (the store's `KeyValueDatabase`),
/// with one serial writer so that a read-check-write (is this email taken?) is atomic.
///
/// Keys: `a/<uid>` account JSON, `e/<email>` uid, `r/<sha256(refresh token)>` refresh record,
/// `t/<uid>/<sha256>` a user's refresh tokens, `o/<sha256(code)>` reset code, `d/<uid>`
/// tombstone of a deleted account.
final class AccountsDatabase: Sendable {
    let file: AccountsFile
    private let writer = DispatchQueue(label: "hearth.accounts.writer")

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
    func write<T: Sendable>(
        sync: Bool = true,
        _ body: @escaping @Sendable (inout Changes) throws(AccountsError) -> T
    ) async throws(AccountsError) -> T {
        let result: Result<T, AccountsError> = await withCheckedContinuation { continuation in
            writer.async { [file] in
                var changes = Changes()
                do throws(AccountsError) {
                    let value = try body(&changes)
                    if !changes.entries.isEmpty { try file.apply(changes.entries, sync: sync) }
                    for action in changes.committed { action() }
                    continuation.resume(returning: .success(value))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
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
