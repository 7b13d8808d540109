import Foundation
import HearthStore
import HearthTestSupport
import Synchronization
import Testing

@testable import HearthAccounts

/// Accounts stores that are copies of one accounts log (a cluster's, over an in-memory log
/// here) kept bounded by snapshots: a store far behind installs the snapshot and hears the
/// revocations it brings; a store that joins late starts from it.
struct ReplicatedAccountsTests {
    @Test func aStoreFarBehindInstallsTheSnapshotAndHearsItsRevocations() async throws {
        let log = MemorySharedLog()
        let scratch = try TemporaryDirectory(prefix: "hearth-replicated-accounts")
        defer { scratch.remove() }
        let clock = TestClock()
        func open(_ name: String) throws -> AccountsStore {
            try TemporaryAccounts(directory: scratch.path + "/" + name, clock: clock).open()
        }
        let (writer, late) = (try open("writer"), try open("late"))
        defer {
            writer.close()
            late.close()
        }
        try await writer.replicate(through: log, snapshotEntries: 4)
        try await late.replicate(through: log, snapshotEntries: 4)
        let bea = try await late.signUp(email: "bea@example.com", password: "secret1")
        let heard = Mutex<[Revocation]>([])
        late.onRevoke { revocation in heard.withLock { $0.append(revocation) } }

        // Many changes through the writer while the late store does not catch up: the log
        // keeps its entries from the previous snapshot on.
        try await writer.synchronize()
        clock.advance(5)
        _ = try await writer.setDisabled(uid: bea.account.localId, true)
        for index in 0..<12 {
            _ = try await writer.signUp(email: "user\(index)@example.com", password: "secret\(index)")
            writer.waitForSnapshots()
        }
        let head = try #require(log.head)
        #expect(log.positions.first! > 2)
        #expect(log.positions.first! <= head.position)
        #expect(log.snapshotPositions == [head.position])

        // The late store installs the snapshot: the accounts are there, and bea's disable is
        // heard as the node that made it told it.
        try await late.synchronize()
        for index in 0..<12 {
            #expect(
                late.account(email: "user\(index)@example.com") == writer.account(email: "user\(index)@example.com")
            )
        }
        #expect(late.account(uid: bea.account.localId)?.disabled == true)
        #expect(heard.withLock { $0.map(\.reason) } == [.disabled])
        await expectAccountsError(.userDisabled) {
            try await late.signIn(email: "bea@example.com", password: "secret1")
        }

        // A store that joins now starts from the snapshot and signs its users in.
        let joined = try open("joined")
        defer { joined.close() }
        try await joined.replicate(through: log, snapshotEntries: 4)
        _ = try await joined.signIn(email: "user7@example.com", password: "secret7")
        #expect(joined.account(uid: bea.account.localId)?.disabled == true)
    }
}
