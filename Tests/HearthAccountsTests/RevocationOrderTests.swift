import Foundation
import HearthTestSupport
import Synchronization
import Testing

@testable import HearthAccounts

/// The revocation registry follows the accounts' commits in their order: it is updated on the
/// accounts' writer, so changes of one account racing each other cannot leave it holding an
/// older state than the store (set after the write returned, a delete could be overwritten by
/// an earlier enable, and the deleted account's tokens stayed good until a restart).
struct RevocationOrderTests {
    /// What a batch runs on commit runs on the writer before the next batch's body: two
    /// writes' commit actions never interleave with each other's batches, however long one
    /// takes, so the registry sees the commits in their order.
    @Test func commitActionsRunBeforeTheNextBatch() async throws {
        let scratch = try TemporaryDirectory(prefix: "hearth-accounts-order")
        defer { scratch.remove() }
        let database = try AccountsDatabase(directory: scratch.path)
        defer { database.close() }
        final class Log: Sendable { let entries = Mutex<[String]>([]) }
        let log = Log()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for name in ["a", "b", "c", "d"] {
                group.addTask {
                    try await database.write { (changes) throws(AccountsError) in
                        log.entries.withLock { $0.append("\(name) batch") }
                        changes.put("key-\(name)", text: name)
                        changes.onCommit {
                            Thread.sleep(forTimeInterval: 0.02)
                            log.entries.withLock { $0.append("\(name) committed") }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let entries = log.entries.withLock { $0 }
        #expect(entries.count == 8)
        for index in stride(from: 0, to: entries.count, by: 2) {
            let name = entries[index].prefix(1)
            #expect(entries[index] == "\(name) batch" && entries[index + 1] == "\(name) committed", "\(entries)")
        }
    }

    @Test func theRegistrySeesEachChangeWhenItsWriteReturns() async throws {
        try await TemporaryAccounts.with { store, _ in
            let uid = try await store.createAccount(email: "ada@example.com", password: "secret1").localId
            #expect(store.revocations.status(uid: uid, authTime: .max) == .valid)
            _ = try await store.setDisabled(uid: uid, true)
            #expect(store.revocations.status(uid: uid, authTime: .max) == .disabled)
            _ = try await store.setDisabled(uid: uid, false)
            #expect(store.revocations.status(uid: uid, authTime: .max) == .valid)
            try await store.deleteAccount(uid: uid)
            #expect(store.revocations.status(uid: uid, authTime: .max) == .deleted)
        }
    }
}
