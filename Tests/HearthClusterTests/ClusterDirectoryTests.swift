import Foundation
import HearthCluster
import HearthTestSupport
import Logging
import NIOCore
import NIOPosix
import Testing

@Suite("The cluster's directory in PostgreSQL: leases, epochs, the fenced changelog")
struct ClusterDirectoryTests {
    /// A directory on a new database of the tests' PostgreSQL (`database`: its URL).
    private func open(_ database: String? = nil) async throws -> ClusterDirectory {
        try await ClusterDirectory.open(
            try ClusterAddress(parsing: try database ?? PrivatePostgres.shared.get().database()),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "test")
        )
    }

    struct NotTaken: Error { let namespace: String }

    /// A directory on a new database (`database`: its URL, for `PrivatePostgres.query`) with
    /// node "a" joined and holding `names` for `leaseSeconds`.
    private func openHolding(
        _ names: [String],
        leaseSeconds: Int
    ) async throws -> (directory: ClusterDirectory, database: String, leases: [NamespaceLease]) {
        let database = try PrivatePostgres.shared.get().database()
        let directory = try await open(database)
        do {
            try await directory.join(node: "a", url: "http://127.0.0.1:1")
            var leases: [NamespaceLease] = []
            for name in names {
                let taken = try await directory.acquire(namespace: name, node: "a", leaseSeconds: leaseSeconds)
                guard case .mine(let lease) = taken else { throw NotTaken(namespace: name) }
                leases.append(lease)
            }
            return (directory, database, leases)
        } catch {
            await directory.close()
            throw error
        }
    }

    private func batch(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test func aNamespaceHasOneOwnerAndTheOtherNodeIsToldWho() async throws {
        let directory = try await open()
        defer { Task { await directory.close() } }
        try await directory.join(node: "a", url: "http://127.0.0.1:1")
        try await directory.join(node: "b", url: "http://127.0.0.1:2")
        let first = try await directory.acquire(namespace: "chat", node: "a", leaseSeconds: 30)
        #expect(first == .mine(NamespaceLease(namespace: "chat", node: "a", epoch: 1, lsn: 0)))
        let second = try await directory.acquire(namespace: "chat", node: "b", leaseSeconds: 30)
        #expect(second == .other(ClusterNode(id: "a", url: "http://127.0.0.1:1", alive: true)))
        #expect(try await directory.owners() == ["chat": "a"])
        #expect(try await directory.nodes(leaseSeconds: 30).map(\.id) == ["a", "b"])
    }

    @Test func aTakeoverAfterTheLeaseRunsOutFencesTheOldOwnersCommits() async throws {
        let directory = try await open()
        defer { Task { await directory.close() } }
        try await directory.join(node: "a", url: "http://127.0.0.1:1")
        try await directory.join(node: "b", url: "http://127.0.0.1:2")
        guard case .mine(let old) = try await directory.acquire(namespace: "chat", node: "a", leaseSeconds: 1) else {
            Issue.record("a did not get the namespace")
            return
        }
        try await directory.append([batch("one"), batch("two")], after: 0, lease: old).get()
        // Only once a's lease ran out (PostgreSQL's clock) may b take the namespace.
        try await Task.sleep(for: .milliseconds(1_200))
        guard case .mine(let new) = try await directory.acquire(namespace: "chat", node: "b", leaseSeconds: 30) else {
            Issue.record("b did not take the namespace over")
            return
        }
        #expect(new.epoch == old.epoch + 1)
        #expect(new.lsn == 2)
        // The old owner's next commit matches no row: refused, nothing appended.
        await #expect(throws: ClusterError.fenced(namespace: "chat", epoch: old.epoch)) {
            try await directory.append([self.batch("zombie")], after: 2, lease: old).get()
        }
        #expect(try await directory.renew(old, leaseSeconds: 30) == false)
        try await directory.append([batch("three")], after: 2, lease: new).get()
        let log = try await directory.changelog(namespace: "chat", after: 0)
        #expect(log.map(\.lsn) == [1, 2, 3])
        #expect(log.map(\.epoch) == [old.epoch, old.epoch, new.epoch])
        #expect(log.map { String(decoding: $0.batch, as: UTF8.self) } == ["one", "two", "three"])
        #expect(try await directory.epoch(of: "chat", at: 3) == new.epoch)
        #expect(try await directory.epoch(of: "chat", at: 4) == nil)
    }

    /// Appends of several namespaces asked for while one is in flight go together in the next
    /// statement (a commit group); each is fenced on its own, and a namespace's second append
    /// waits for the group after its first.
    @Test func appendsOfManyNamespacesCommitTogetherAndAreFencedEachOnItsOwn() async throws {
        let (directory, _, leases) = try await openHolding(["n0", "n1", "n2", "n3"], leaseSeconds: 30)
        defer { Task { await directory.close() } }
        // n0's append goes alone; the others wait for it, then go as one group (n1's second
        // append after them).
        let first = directory.append([batch("n0-a")], after: 0, lease: leases[0])
        let one = directory.append([batch("n1-a"), batch("n1-b")], after: 0, lease: leases[1])
        let wrong = directory.append([batch("n2-a")], after: 5, lease: leases[2])
        let three = directory.append([batch("n3-a")], after: 0, lease: leases[3])
        let again = directory.append([batch("n1-c")], after: 2, lease: leases[1])
        try await first.get()
        try await one.get()
        await #expect(throws: ClusterError.fenced(namespace: "n2", epoch: leases[2].epoch)) { try await wrong.get() }
        try await three.get()
        try await again.get()
        func log(_ name: String) async throws -> [String] {
            try await directory.changelog(namespace: name, after: 0).map { String(decoding: $0.batch, as: UTF8.self) }
        }
        #expect(try await log("n0") == ["n0-a"])
        #expect(try await log("n1") == ["n1-a", "n1-b", "n1-c"])
        #expect(try await log("n2") == [])
        #expect(try await log("n3") == ["n3-a"])
        // n2 is untouched: its right position still takes an append.
        try await directory.append([batch("n2-right")], after: 0, lease: leases[2]).get()
        #expect(try await log("n2") == ["n2-right"])
    }

    /// Appends held for the node's writers' pass wait, with no group in flight, for its end
    /// (`sendHeldAppends`) or for an append that is not held, then go as one statement: one
    /// transaction for all of them.
    @Test func appendsHeldForAPassWaitForItsEndAndGoTogether() async throws {
        let (directory, database, leases) = try await openHolding(["h0", "h1", "h2"], leaseSeconds: 30)
        defer { Task { await directory.close() } }
        // Each entry's transaction, by namespace then position.
        func transactions() throws -> [String] {
            try PrivatePostgres.shared.get().query(
                "SELECT xmin::text FROM hearth_changelog ORDER BY ns, lsn",
                in: database
            )
        }
        let first = directory.append([batch("h0-a")], after: 0, lease: leases[0], heldForPass: true)
        let second = directory.append([batch("h1-a")], after: 0, lease: leases[1], heldForPass: true)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try transactions() == [])
        directory.sendHeldAppends()
        try await first.get()
        try await second.get()
        // An append that is not held takes a held one with it.
        let held = directory.append([batch("h2-a")], after: 0, lease: leases[2], heldForPass: true)
        let now = directory.append([batch("h0-b")], after: 1, lease: leases[0])
        try await held.get()
        try await now.get()
        let rows = try transactions()  // h0-a, h0-b, h1-a, h2-a
        #expect(rows.count == 4)
        guard rows.count == 4 else { return }
        #expect(rows[0] == rows[2])
        #expect(rows[1] == rows[3] && rows[1] != rows[0])
    }

    @Test func aNodeRenewsAllItsLeasesAtOnceAndLearnsWhichItLost() async throws {
        let directory = try await open()
        defer { Task { await directory.close() } }
        try await directory.join(node: "a", url: "http://127.0.0.1:1")
        try await directory.join(node: "b", url: "http://127.0.0.1:2")
        var leases: [NamespaceLease] = []
        for index in 0..<200 {
            let lease = try await directory.acquire(
                namespace: "n\(index)",
                node: "a",
                leaseSeconds: index == 7 ? 1 : 30
            )
            guard case .mine(let lease) = lease else {
                Issue.record("a did not get n\(index)")
                return
            }
            leases.append(lease)
        }
        try await Task.sleep(for: .milliseconds(1_200))
        guard case .mine = try await directory.acquire(namespace: "n7", node: "b", leaseSeconds: 30) else {
            Issue.record("b did not take n7 over")
            return
        }
        let renewed = try await directory.renew(leases, leaseSeconds: 30)
        #expect(renewed.count == 199)
        #expect(!renewed.contains(leases[7]))
        #expect(try await directory.owners().filter { $0.value == "a" }.count == 199)
    }

    /// A node's commit groups and its lease renewals update the same rows from two connections;
    /// a renewal never waits for a row while it holds another (it skips the locked ones, then
    /// renews each on its own), so the two never wait for each other in a cycle, which PostgreSQL would break by failing one of them
    /// ("deadlock detected": a commit refused, its namespace given up).
    @Test func commitGroupsAndRenewalsOfOneNodeNeverDeadlock() async throws {
        let directory = try await open()
        defer { Task { await directory.close() } }
        try await directory.join(node: "a", url: "http://127.0.0.1:1")
        var leases: [NamespaceLease] = []
        // Taken in an order unlike the names' (so rows sit unlike either statement's order).
        for index in (0..<40).map({ ($0 * 17) % 40 }) {
            let taken = try await directory.acquire(namespace: "n\(index)", node: "a", leaseSeconds: 60)
            guard case .mine(let lease) = taken else {
                Issue.record("a did not get n\(index)")
                return
            }
            leases.append(lease)
        }
        let held = leases
        let until = ContinuousClock.now + .seconds(4)
        let batch = batch("x")
        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            for lease in held {
                group.addTask {
                    var after: Int64 = 0
                    var failures: [String] = []
                    while ContinuousClock.now < until && failures.isEmpty {
                        do {
                            try await directory.append([batch], after: after, lease: lease).get()
                            after += 1
                        } catch {
                            failures.append("append of \(lease.namespace): \(error)")
                        }
                    }
                    return failures
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    var failures: [String] = []
                    while ContinuousClock.now < until && failures.isEmpty {
                        do {
                            let renewed = try await directory.renew(held.shuffled(), leaseSeconds: 60)
                            if renewed.count != held.count { failures.append("renewed \(renewed.count) leases") }
                        } catch {
                            failures.append("renewal: \(error)")
                        }
                    }
                    return failures
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(failures.count == 0, "\(failures.prefix(3))")
        for lease in leases.prefix(3) {
            #expect(try await directory.changelog(namespace: lease.namespace, after: 0).count > 0)
        }
    }

    /// A lease whose row another transaction holds locked is renewed once the lock is gone, by
    /// a statement of its own: the others were renewed already, while it waited.
    @Test func aLeaseWhoseRowIsLockedIsRenewedOnceTheLockIsGoneAndTheOthersAtOnce() async throws {
        let server = try PrivatePostgres.shared.get()
        let (directory, database, leases) = try await openHolding(["free", "locked", "other"], leaseSeconds: 5)
        defer { Task { await directory.close() } }
        func leaseEnds() throws -> [String] {
            try server.query("SELECT ns || ':' || lease_until FROM hearth_namespaces ORDER BY ns", in: database)
        }
        let before = try leaseEnds()
        let locker = StartedThread {
            try server.query(
                "SELECT 1 FROM hearth_namespaces WHERE ns = 'locked' FOR UPDATE; SELECT pg_sleep(1.5)",
                in: database
            )
        }
        try await eventually(timeout: .seconds(10), interval: .milliseconds(20)) {
            try server.query(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE query LIKE '%pg_sleep(1.5)%' AND pid <> pg_backend_pid() AND state = 'active'
                  AND datname = current_database()
                """,
                in: database
            )
            .first != "0"
        }
        let renewal = Task { try await directory.renew(leases, leaseSeconds: 30) }
        // While the renewal waits for the locked row, the other two are renewed already.
        try await eventually(timeout: .seconds(1), interval: .milliseconds(20)) {
            let now = try leaseEnds()
            return now[0] != before[0] && now[2] != before[2]
        }
        #expect(try leaseEnds()[1] == before[1])
        _ = try await locker.value()
        #expect(try await renewal.value == Set(leases))
        #expect(try leaseEnds()[1] != before[1])
    }

    @Test func anAppendAfterTheWrongPositionIsRefusedWhole() async throws {
        let directory = try await open()
        defer { Task { await directory.close() } }
        try await directory.join(node: "a", url: "http://127.0.0.1:1")
        guard case .mine(let lease) = try await directory.acquire(namespace: "n", node: "a", leaseSeconds: 30) else {
            Issue.record("a did not get the namespace")
            return
        }
        try await directory.append([batch("one")], after: 0, lease: lease).get()
        await #expect(throws: ClusterError.self) {
            try await directory.append([self.batch("again"), self.batch("more")], after: 0, lease: lease).get()
        }
        #expect(try await directory.changelog(namespace: "n", after: 0).count == 1)
        #expect(try await directory.renew(lease, leaseSeconds: 30))
    }

    @Test func aSharedLogsSnapshotIsPublishedWhenNewerAndCompactsTheLog() async throws {
        let directory = try await open()
        defer { Task { await directory.close() } }
        for position in 1...6 {
            #expect(
                try await directory.appendShared("accounts", batch: [UInt8(position)], at: Int64(position), node: "a")
                    .get()
            )
        }
        #expect(try await directory.sharedSnapshotHead("accounts").get() == nil)
        // No entry at 9: nothing is published, and the chunk goes.
        try await directory.writeSharedSnapshotChunk("accounts", position: 9, chunk: 0, data: [9]).get()
        #expect(try await !directory.publishSharedSnapshot("accounts", position: 9, chunks: 1).get())
        #expect(try await directory.sharedSnapshotChunk("accounts", position: 9, chunk: 0).get() == nil)

        try await directory.writeSharedSnapshotChunk("accounts", position: 3, chunk: 0, data: [3]).get()
        #expect(try await directory.publishSharedSnapshot("accounts", position: 3, chunks: 1).get())
        // A second node publishing the same position keeps the published chunks.
        try await directory.writeSharedSnapshotChunk("accounts", position: 3, chunk: 0, data: [3]).get()
        #expect(try await !directory.publishSharedSnapshot("accounts", position: 3, chunks: 1).get())
        #expect(try await directory.sharedSnapshotChunk("accounts", position: 3, chunk: 0).get() == [3])

        try await directory.writeSharedSnapshotChunk("accounts", position: 5, chunk: 0, data: [5]).get()
        #expect(try await directory.publishSharedSnapshot("accounts", position: 5, chunks: 1).get())
        // An older one is not published over it.
        try await directory.writeSharedSnapshotChunk("accounts", position: 4, chunk: 0, data: [4]).get()
        #expect(try await !directory.publishSharedSnapshot("accounts", position: 4, chunks: 1).get())
        #expect(
            try await directory.sharedSnapshotHead("accounts").get().map { [$0.position, Int64($0.chunks)] } == [5, 1]
        )

        try await directory.compactShared("accounts", entriesBefore: 3, snapshotsBefore: 5).get()
        #expect(try await directory.sharedLog("accounts", after: 0, limit: 10).get().map(\.position) == [3, 4, 5, 6])
        #expect(try await directory.sharedSnapshotChunk("accounts", position: 3, chunk: 0).get() == nil)
        #expect(try await directory.sharedSnapshotChunk("accounts", position: 5, chunk: 0).get() == [5])
        // Another stream is untouched; trimming keeps what is at or after its position.
        #expect(try await directory.appendShared("rules/x", batch: [1], at: 1, node: "a").get())
        #expect(try await directory.appendShared("rules/x", batch: [2], at: 2, node: "a").get())
        try await directory.trimShared("rules/x", before: 2).get()
        #expect(try await directory.sharedLog("rules/x", after: 0, limit: 10).get().map(\.position) == [2])
        #expect(try await directory.sharedLog("accounts", after: 0, limit: 10).get().count == 4)
    }

    @Test func aRestartedNodeTakesItsOwnNamespaceAtANewEpoch() async throws {
        let directory = try await open()
        defer { Task { await directory.close() } }
        try await directory.join(node: "a", url: "http://127.0.0.1:1")
        guard case .mine(let before) = try await directory.acquire(namespace: "n", node: "a", leaseSeconds: 30),
            case .mine(let after) = try await directory.acquire(namespace: "n", node: "a", leaseSeconds: 30)
        else {
            Issue.record("a did not get the namespace")
            return
        }
        #expect(after.epoch == before.epoch + 1)
        await #expect(throws: ClusterError.fenced(namespace: "n", epoch: before.epoch)) {
            try await directory.append([self.batch("stale")], after: 0, lease: before).get()
        }
    }

    @Test func addressesParseAndErrorsSayWhatToWrite() throws {
        let address = try ClusterAddress(parsing: "postgresql://hearth:secret@db.local:6432/chat")
        #expect(
            address
                == ClusterAddress(host: "db.local", port: 6432, user: "hearth", password: "secret", database: "chat")
        )
        #expect(address.description == "postgresql://hearth:***@db.local:6432/chat")
        #expect(try ClusterAddress(parsing: "postgres://u@h/d").port == 5432)
        for bad in ["http://u@h/d", "postgresql://h/d", "postgresql://u@h/", "not a url"] {
            #expect(throws: ClusterError.self) { try ClusterAddress(parsing: bad) }
        }
    }
}
