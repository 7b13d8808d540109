public import Logging
public import NIOCore
import PostgresNIO
import Synchronization

/// The cluster's shared state in PostgreSQL: its nodes, who owns each namespace (leases taken
/// and renewed against PostgreSQL's clock, an epoch per takeover) and each namespace's
/// changelog, appended only by the holder of the namespace's current epoch.
public final class ClusterDirectory: Sendable {
    public let address: ClusterAddress
    /// Commits (`append`): one connection, so a commit never waits behind a lease renewal.
    private let commits: PostgresLink
    /// The appends of all the node's namespaces, in commit groups on `commits`.
    private let commitGroups: CommitGroups
    /// Lease renewals, releases and heartbeats: short statements that never wait behind a
    /// takeover's changelog read, a snapshot's publication or a compaction on `control`.
    private let leaseLink: PostgresLink
    /// Takeovers, changelog reads, snapshot heads and the cluster view.
    let control: PostgresLink
    /// The shared logs (`sharedLog`, `appendShared`): a large batch never delays a lease.
    let shared: PostgresLink
    /// Objects' bytes (`ClusterDirectory+Objects`): a few links taken in turn, so a large
    /// upload never delays a log append and uploads go on side by side.
    let objectLinks: [PostgresLink]
    let nextObjectLink = Atomic<Int>(0)
    /// How long a query of the objects' links may take at least.
    static let objectQueryTimeout = TimeAmount.minutes(2)

    private init(address: ClusterAddress, eventLoopGroup: any EventLoopGroup, timeout: TimeAmount, logger: Logger) {
        self.address = address
        func link(_ name: String, timeout: TimeAmount) -> PostgresLink {
            PostgresLink(
                address: address,
                name: name,
                eventLoop: eventLoopGroup.next(),
                timeout: timeout,
                logger: logger
            )
        }
        commits = link("commits", timeout: timeout)
        commitGroups = CommitGroups(link: commits)
        leaseLink = link("leases", timeout: timeout)
        control = link("control", timeout: timeout)
        shared = link("shared", timeout: timeout)
        // A copy or delete of a large object's pieces is one statement over many rows.
        objectLinks = (0..<Self.objectLinkCount).map { index in
            link("objects-\(index)", timeout: max(timeout, Self.objectQueryTimeout))
        }
    }

    /// Connects to the cluster's PostgreSQL and creates its tables when they are missing.
    /// - Parameter timeout: how long any query may take before it fails (and its connection
    ///   is made again): a node never waits on a dead PostgreSQL longer than that.
    public static func open(
        _ address: ClusterAddress,
        eventLoopGroup: any EventLoopGroup,
        timeout: TimeAmount = .seconds(5),
        logger: Logger
    ) async throws -> ClusterDirectory {
        let directory = ClusterDirectory(
            address: address,
            eventLoopGroup: eventLoopGroup,
            timeout: timeout,
            logger: logger
        )
        do {
            for statement in ClusterSchema.statements {
                try await directory.control.query(PostgresQuery(unsafeSQL: statement))
            }
        } catch {
            await directory.close()
            throw error
        }
        return directory
    }

    public func close() async {
        await commits.close()
        await leaseLink.close()
        await control.close()
        await shared.close()
        for link in objectLinks { await link.close() }
    }

    // MARK: Nodes

    /// Records this node (or its new URL) and a heartbeat: a node beats by joining again, so a
    /// join that failed once is made by the next beat.
    public func join(node: String, url: String) async throws {
        try await leaseLink.query(
            """
            INSERT INTO hearth_nodes (id, url) VALUES (\(node), \(url))
            ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, heartbeat = clock_timestamp()
            """
        )
    }

    /// Every node that joined, alive when its heartbeat is younger than `leaseSeconds`.
    public func nodes(leaseSeconds: Int) async throws -> [ClusterNode] {
        let rows = try await control.query(
            """
            SELECT id, url, heartbeat > clock_timestamp() - make_interval(secs => \(Double(leaseSeconds)))
            FROM hearth_nodes ORDER BY id
            """
        )
        return try rows.rows.map { row in
            let (id, url, alive) = try row.decode((String, String, Bool).self)
            return ClusterNode(id: id, url: url, alive: alive)
        }
    }

    /// The namespaces whose lease has not run out, and their owners.
    public func owners() async throws -> [String: String] {
        let rows = try await control.query(
            "SELECT ns, owner FROM hearth_namespaces WHERE owner IS NOT NULL AND lease_until > clock_timestamp()"
        )
        var owners: [String: String] = [:]
        for row in rows.rows {
            let (namespace, owner) = try row.decode((String, String).self)
            owners[namespace] = owner
        }
        return owners
    }

    /// Whether `namespace` was ever written in the cluster.
    public func exists(namespace: String) async throws -> Bool {
        let rows = try await control.query("SELECT 1 FROM hearth_namespaces WHERE ns = \(namespace) AND lsn > 0")
        return !rows.rows.isEmpty
    }

    // MARK: Leases

    /// Takes `namespace` for `node` when nobody holds a lease on it that has not run out (or
    /// `node` itself held it: a restarted node takes a new epoch too); else says who holds it.
    public func acquire(namespace: String, node: String, leaseSeconds: Int) async throws -> NamespaceOwnership {
        try await control.query("INSERT INTO hearth_namespaces (ns) VALUES (\(namespace)) ON CONFLICT (ns) DO NOTHING")
        let taken = try await control.query(
            """
            UPDATE hearth_namespaces
            SET owner = \(node), epoch = epoch + 1,
                lease_until = clock_timestamp() + make_interval(secs => \(Double(leaseSeconds)))
            WHERE ns = \(namespace) AND (owner IS NULL OR owner = \(node) OR lease_until <= clock_timestamp())
            RETURNING epoch, lsn
            """
        )
        if let row = taken.rows.first {
            let (epoch, lsn) = try row.decode((Int64, Int64).self)
            return .mine(NamespaceLease(namespace: namespace, node: node, epoch: epoch, lsn: lsn))
        }
        let holder = try await control.query(
            """
            SELECT n.id, n.url, n.heartbeat > clock_timestamp() - make_interval(secs => \(Double(leaseSeconds)))
            FROM hearth_namespaces s JOIN hearth_nodes n ON n.id = s.owner WHERE s.ns = \(namespace)
            """
        )
        guard let row = holder.rows.first else {
            throw ClusterError.inconsistent("namespace '\(namespace)' is held by a node that never joined")
        }
        let (id, url, alive) = try row.decode((String, String, Bool).self)
        return .other(ClusterNode(id: id, url: url, alive: alive))
    }

    /// Extends `lease` by `leaseSeconds` from now; false when its epoch was taken over.
    public func renew(_ lease: NamespaceLease, leaseSeconds: Int) async throws -> Bool {
        try await renew([lease], leaseSeconds: leaseSeconds).contains(lease)
    }

    /// Extends every lease of `leases` (one node's) by `leaseSeconds` from now, in one
    /// statement however many there are; answers the ones still held (the others' epochs were
    /// taken over, or their rows are gone).
    ///
    /// That statement never waits for a row lock: it skips the rows a commit of this node holds
    /// at that moment (`FOR UPDATE SKIP LOCKED`), and each of those is renewed after it by a
    /// statement of its own, which waits for that one row only. A commit group locks its
    /// namespaces' rows in an order of its own, on another connection: a renewal that waited
    /// for one row while holding others could close a cycle with it, which PostgreSQL breaks
    /// by failing one of the two ("deadlock detected": a commit refused, its namespace given
    /// up). A statement that holds no lock while it waits closes no cycle.
    public func renew(_ leases: [NamespaceLease], leaseSeconds: Int) async throws -> Set<NamespaceLease> {
        guard let node = leases.first?.node else { return [] }
        precondition(leases.allSatisfy { $0.node == node }, "renew(_:) takes one node's leases")
        let byKey = Dictionary(
            leases.map { ("\($0.namespace)\u{0}\($0.epoch)", $0) },
            uniquingKeysWith: { first, _ in first }
        )
        let interval = Double(leaseSeconds)
        let rows = try await leaseLink.query(
            """
            WITH locked AS MATERIALIZED (
                SELECT ns FROM hearth_namespaces WHERE ns = ANY(\(leases.map(\.namespace))::text[])
                FOR UPDATE SKIP LOCKED
            ), held AS (
                SELECT * FROM unnest(\(leases.map(\.namespace))::text[], \(leases.map(\.epoch))::bigint[])
                    AS held(ns, epoch)
            ), renewed AS (
                UPDATE hearth_namespaces AS s
                SET lease_until = clock_timestamp() + make_interval(secs => \(interval))
                FROM locked, held
                WHERE s.ns = locked.ns AND s.ns = held.ns AND s.epoch = held.epoch AND s.owner = \(node)
                RETURNING s.ns, s.epoch
            )
            SELECT ns, epoch, true FROM renewed
            UNION ALL
            SELECT held.ns, held.epoch, false FROM held JOIN hearth_namespaces AS s ON s.ns = held.ns
            WHERE s.ns NOT IN (SELECT ns FROM locked) AND s.epoch = held.epoch AND s.owner = \(node)
            """
        )
        var renewed = Set<NamespaceLease>()
        var busy: [NamespaceLease] = []
        for row in rows.rows {
            let (namespace, epoch, done) = try row.decode((String, Int64, Bool).self)
            guard let lease = byKey["\(namespace)\u{0}\(epoch)"] else { continue }
            if done { renewed.insert(lease) } else { busy.append(lease) }
        }
        for lease in busy {
            let one = try await leaseLink.query(
                """
                UPDATE hearth_namespaces SET lease_until = clock_timestamp() + make_interval(secs => \(interval))
                WHERE ns = \(lease.namespace) AND epoch = \(lease.epoch) AND owner = \(node)
                RETURNING ns
                """
            )
            if !one.rows.isEmpty { renewed.insert(lease) }
        }
        return renewed
    }

    /// Gives `lease` up at once (a node that stops), so another node need not wait it out.
    public func release(_ lease: NamespaceLease) async throws {
        try await leaseLink.query(
            """
            UPDATE hearth_namespaces SET lease_until = clock_timestamp()
            WHERE ns = \(lease.namespace) AND owner = \(lease.node) AND epoch = \(lease.epoch)
            """
        )
    }

    /// Settles an append of `lease` after position `lsn` whose answer never came (the
    /// connection failed or fell silent: it may have committed or not). Fences `lease`'s epoch
    /// first, so that the append, were it still on its way, can no longer commit (its
    /// conditional update waits for this one's row lock, then matches nothing), and gives the
    /// lease up; then answers whether the append committed: its first entry is in the changelog
    /// under `lease`'s epoch (only `lease` appends under it). When another node took the
    /// namespace over first, its new epoch fenced the append just as well. Throws when
    /// PostgreSQL does not answer: the outcome is still unknown.
    public func settle(_ lease: NamespaceLease, after lsn: Int64) async throws -> Bool {
        try await control.query(
            """
            UPDATE hearth_namespaces SET epoch = epoch + 1, lease_until = clock_timestamp()
            WHERE ns = \(lease.namespace) AND owner = \(lease.node) AND epoch = \(lease.epoch)
            """
        )
        return try await epoch(of: lease.namespace, at: lsn + 1) == lease.epoch
    }

    /// Removes the namespace of `lease` from the cluster when it was never written (no
    /// changelog entry) and `lease` still holds it; false when either is no longer so.
    public func dropUnwritten(_ lease: NamespaceLease) async throws -> Bool {
        let dropped = try await control.query(
            """
            DELETE FROM hearth_namespaces
            WHERE ns = \(lease.namespace) AND owner = \(lease.node) AND epoch = \(lease.epoch) AND lsn = 0
            RETURNING ns
            """
        )
        return !dropped.rows.isEmpty
    }

    // MARK: The changelog

    /// Appends `batches` at positions `after + 1`, `after + 2`, … in one transaction, fenced:
    /// only when `lease`'s epoch is still the namespace's and its last position is `after`.
    /// Fails with `ClusterError.fenced` when another node took the namespace over (nothing is
    /// appended then), `.unavailable` when PostgreSQL did not answer (whether it committed is
    /// then unknown: the caller must not serve the namespace from what it holds).
    ///
    /// Appends of all namespaces go in commit groups (`CommitGroups`: one statement in flight,
    /// the appends asked for meanwhile together in the next). Call it for a namespace only once
    /// its previous append completed (a clustered writer keeps one in flight,
    /// `ReplicationCapture`); a second one meanwhile would wait for the group after.
    /// - Parameter heldForPass: more of this node's appends follow at once (its writers' pass
    ///   goes on): when no group is in flight, this one waits for them, for `sendHeldAppends`,
    ///   or for an append that is not held, and they go as one group.
    public func append(
        _ batches: [ByteBuffer],
        after lsn: Int64,
        lease: NamespaceLease,
        heldForPass: Bool = false
    ) -> EventLoopFuture<Void> {
        commitGroups.append(batches, after: lsn, lease: lease, held: heldForPass)
    }

    /// Sends the appends held for a pass of the node's writers (`append(heldForPass:)`), now
    /// that it ended; nothing when none waits or a group is in flight (they go when it returns).
    public func sendHeldAppends() {
        commitGroups.sendHeld()
    }

    /// At most `limit` entries of `namespace`'s changelog after position `lsn`, in order.
    public func changelog(namespace: String, after lsn: Int64, limit: Int = 1_000) async throws -> [ChangelogEntry] {
        let rows = try await control.query(
            """
            SELECT lsn, epoch, batch FROM hearth_changelog
            WHERE ns = \(namespace) AND lsn > \(lsn) ORDER BY lsn LIMIT \(limit)
            """
        )
        return try rows.rows.map { row in
            let (position, epoch, batch) = try row.decode((Int64, Int64, ByteBuffer).self)
            return ChangelogEntry(lsn: position, epoch: epoch, batch: Array(buffer: batch))
        }
    }

    /// The epoch of the entry at `lsn`, if there is one (a node checks that its local state's
    /// last entry is the cluster's before it catches up from there).
    public func epoch(of namespace: String, at lsn: Int64) async throws -> Int64? {
        let rows = try await control.query(
            "SELECT epoch FROM hearth_changelog WHERE ns = \(namespace) AND lsn = \(lsn)"
        )
        return try rows.rows.first?.decode(Int64.self)
    }
}

extension ClusterDirectory {
    // MARK: Shared logs

    /// At most `limit` entries of the shared log `stream` after `position`, in order.
    public func sharedLog(
        _ stream: String,
        after position: Int64,
        limit: Int
    ) -> EventLoopFuture<[(position: Int64, batch: [UInt8])]> {
        shared.query(
            """
            SELECT position, batch FROM hearth_shared_log
            WHERE stream = \(stream) AND position > \(position) ORDER BY position LIMIT \(limit)
            """
        ).flatMapThrowing { result in
            try result.rows.map { row in
                let (position, batch) = try row.decode((Int64, ByteBuffer).self)
                return (position, Array(buffer: batch))
            }
        }
    }

    /// The newest `limit` entries of the shared log `stream`, oldest first, with when each was
    /// written (milliseconds since 1970, PostgreSQL's clock).
    public func sharedLogTail(
        _ stream: String,
        limit: Int
    ) async throws -> [(position: Int64, writtenMillis: Double, batch: [UInt8])] {
        let result = try await shared.query(
            """
            SELECT position, (extract(epoch FROM written) * 1000)::float8, batch FROM hearth_shared_log
            WHERE stream = \(stream) ORDER BY position DESC LIMIT \(limit)
            """
        )
        return try result.rows.map { row in
            let (position, written, batch) = try row.decode((Int64, Double, ByteBuffer).self)
            return (position, written, Array(buffer: batch))
        }.reversed()
    }

    /// The newest position of each of `streams` that has an entry, in one statement (a stream
    /// without entries is absent).
    public func sharedLogHeads(_ streams: [String]) async throws -> [String: Int64] {
        guard !streams.isEmpty else { return [:] }
        let result = try await shared.query(
            """
            SELECT stream, max(position) FROM hearth_shared_log
            WHERE stream = ANY(\(streams)::text[]) GROUP BY stream
            """
        )
        var heads: [String: Int64] = [:]
        for row in result.rows {
            let (stream, position) = try row.decode((String, Int64).self)
            heads[stream] = position
        }
        return heads
    }

    /// Appends `batch` to the shared log `stream` at `position`, written by `node`; false when
    /// another node's entry holds that position.
    public func appendShared(
        _ stream: String,
        batch: [UInt8],
        at position: Int64,
        node: String
    ) -> EventLoopFuture<Bool> {
        shared.query(
            """
            INSERT INTO hearth_shared_log (stream, position, node, batch)
            VALUES (\(stream), \(position), \(node), \(ByteBuffer(bytes: batch)))
            ON CONFLICT (stream, position) DO NOTHING RETURNING position
            """
        ).map { !$0.rows.isEmpty }
    }
}
