import Foundation
import HearthTestSupport
import Testing

extension ClusterProcessTests {
    /// An owner's local copy holds a round while its append to the changelog is in flight; a
    /// read in that moment must not answer with it, since the append may yet be refused.
    @Suite("reads of what is committed")
    struct ClusterCommittedReadTests {
        /// The refused write's value is small (a read renders it whole) or has `children` of 1 KB
        /// each (a read sends it in 256 KiB chunks as it renders them).
        @Test(arguments: [0, 600])
        func aReadNeverAnswersAWriteWhoseAppendIsThenRefused(children: Int) async throws {
            let padding = String(repeating: "p", count: 1_000)
            let phantom =
                children == 0
                ? #""phantom""#
                : "{" + (0..<children).map { #""phantom\#($0)":"\#(padding)""# }.joined(separator: ",") + "}"
            try await Cluster.withOneNode(leaseSeconds: 10) { node, postgres, database in
                try await check(node, phantom: phantom, postgres: postgres, database: database)
            }
        }

        private func check(
            _ node: ProcessTestServer,
            phantom: String,
            postgres: PrivatePostgres,
            database: String
        ) async throws {
            #expect(try await node.request("PUT", "/a.json?ns=fenced", body: #""kept""#, admin: true).status == 200)
            // The namespace's row is locked for 2 s, then its epoch moves (as a takeover by
            // another node would move it): the append of the next write waits for the lock, then
            // matches no row, and the write is refused.
            let locker = StartedThread {
                try postgres.query(
                    """
                    SELECT 1 FROM hearth_namespaces WHERE ns = 'fenced' FOR UPDATE;
                    SELECT pg_sleep(2);
                    UPDATE hearth_namespaces SET epoch = epoch + 1 WHERE ns = 'fenced'
                    """,
                    in: database
                )
            }
            try await eventually(timeout: .seconds(10), interval: .milliseconds(10)) {
                try Self.active("%pg_sleep(2)%", postgres: postgres, database: database)
            }
            let write = Task {
                try await node.request(
                    "PUT",
                    "/a.json?ns=fenced",
                    body: phantom,
                    admin: true,
                    timeout: .seconds(20)
                )
            }
            // Once its append waits for the lock, the write's round is in the node's LevelDB.
            try await eventually(timeout: .seconds(10), interval: .milliseconds(10)) {
                try Self.active("%INSERT INTO hearth_changelog%", postgres: postgres, database: database)
            }
            let read = try await node.request("GET", "/a.json?ns=fenced", admin: true, timeout: .seconds(20))
            _ = try await locker.value()
            let written = try await write.value
            #expect(written.status != 200, "the write was acknowledged: \(written.status) \(written.body)")
            // The read waited for the append, and was refused with it (503: retry).
            #expect(read.status == 503, "a read answered \(read.status) \(read.body.prefix(200)) during the append")
            #expect(!read.body.contains("phantom"), "a read answered a write that was never committed")

            // Served again (the lease taken anew), the namespace holds what was committed.
            var last = ProcessTestServer.Response(status: 0, body: "")
            try await eventually(timeout: .seconds(40), interval: .milliseconds(200)) {
                last = try await node.request("GET", "/a.json?ns=fenced", admin: true)
                return last.status == 200
            }
            #expect(last.body == #""kept""#)
        }

        @Test func aReadDuringAnAppendThatCommitsAnswersTheWrite() async throws {
            try await Cluster.withOneNode(leaseSeconds: 10) { node, postgres, database in
                #expect(try await node.request("PUT", "/a.json?ns=held", body: "1", admin: true).status == 200)
                let locker = StartedThread {
                    try postgres.query(
                        "SELECT 1 FROM hearth_namespaces WHERE ns = 'held' FOR UPDATE; SELECT pg_sleep(1.5)",
                        in: database
                    )
                }
                try await eventually(timeout: .seconds(10), interval: .milliseconds(10)) {
                    try Self.active("%pg_sleep(1.5)%", postgres: postgres, database: database)
                }
                let write = Task { try await node.request("PUT", "/a.json?ns=held", body: "2", admin: true) }
                try await eventually(timeout: .seconds(10), interval: .milliseconds(10)) {
                    try Self.active("%INSERT INTO hearth_changelog%", postgres: postgres, database: database)
                }
                let read = try await node.request("GET", "/a.json?ns=held", admin: true)
                _ = try await locker.value()
                #expect(try await write.value.status == 200)
                #expect(read.status == 200 && read.body == "2", "\(read.status) \(read.body)")
            }
        }

        /// Whether a statement like `pattern` runs in the database now (not this query). Only
        /// `database`'s: the cases of one test run at once, each with a database of its own in
        /// one PostgreSQL, and one case's append taken for another's let a read go too early.
        static func active(_ pattern: String, postgres: PrivatePostgres, database: String) throws -> Bool {
            try postgres.query(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE query LIKE '\(pattern)' AND pid <> pg_backend_pid() AND state = 'active'
                  AND datname = current_database()
                """,
                in: database
            )
            .first != "0"
        }
    }
}
