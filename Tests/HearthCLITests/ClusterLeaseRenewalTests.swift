import Foundation
import HearthTestSupport
import Testing

extension ClusterProcessTests {
    /// An owner keeps its namespaces through one renewal PostgreSQL answers too late: the next
    /// is sent at once, not a third of a lease later.
    @Suite("lease renewals")
    struct ClusterLeaseRenewalTests {
        @Test func aRenewalHeldUpPastItsTimeBoundIsSentAgainWithinTheLease() async throws {
            // A 10 s lease: renewed every 3.3 s, a renewal unanswered after 3.3 s fails, and the
            // node stops serving 9.75 s after the last renewal that was answered was sent.
            try await Cluster.withOneNode(leaseSeconds: 10) { node, postgres, database in
                try await check(node, postgres: postgres, database: database)
            }
        }

        private func check(_ node: ProcessTestServer, postgres: PrivatePostgres, database: String) async throws {
            #expect(try await node.request("PUT", "/a.json?ns=held", body: "1", admin: true).status == 200)
            func row() throws -> String {
                try postgres.query(
                    "SELECT owner, epoch, lease_until FROM hearth_namespaces WHERE ns = 'held'",
                    in: database
                )
                .first ?? ""
            }
            func epoch(_ row: String) -> String { row.split(separator: "|").prefix(2).joined(separator: "|") }

            // Just after a renewal (its lease_until moved), the namespace's row is locked for
            // 7.5 s: the next renewal waits for the lock past its 3.3 s bound and fails; only one
            // sent again before the lease runs out can keep it.
            let renewed = try row()
            try await eventually(timeout: .seconds(10), interval: .milliseconds(20)) { try row() != renewed }
            let locker = StartedThread {
                try postgres.query(
                    "SELECT 1 FROM hearth_namespaces WHERE ns = 'held' FOR UPDATE; SELECT pg_sleep(7.5)",
                    in: database
                )
            }
            let owner = epoch(try row())
            var refused: [Int] = []
            let until = ContinuousClock.now + .seconds(12)
            while ContinuousClock.now < until {
                let read = try await node.request("GET", "/a.json?ns=held", admin: true, timeout: .seconds(10))
                if read.status != 200 { refused.append(read.status) }
                try await Task.sleep(for: .milliseconds(200))
            }
            _ = try await locker.value()
            let given = node.child.stderr().split(separator: "\n").filter { $0.contains("namespace given up") }
            #expect(refused.isEmpty, "reads refused while the renewal waited: \(refused); \(given)")
            #expect(epoch(try row()) == owner, "the namespace changed hands: \(given)")
            #expect(given.isEmpty, "\(given)")
        }
    }
}
