import AsyncHTTPClient
import Foundation
import HearthCluster
import HearthCore
import HearthDatabase
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// This node's place in the cluster (docs/cluster.md): its row and heartbeat, the namespaces it
/// owns (each with its lease, renewed a few times a lease), and where a request for any other
/// namespace goes. A namespace nobody holds is taken on its first request: the lease, then the
/// local copy caught up from the changelog (cleared first when it holds a commit the changelog
/// does not), then its rules, seed and the onDisconnect writes its previous owner left; only
/// then does the node serve it. Every commit of an owned namespace is appended to the changelog,
/// fenced by the lease's epoch, before it is acknowledged (`ClusterHooks.sink`).
final class ClusterMembership: Sendable {
    enum Route: Equatable {
        /// This node serves the namespace.
        case local
        /// Another node does: forward to its URL.
        case forward(String)
        /// Another node holds the lease but stopped beating: its namespaces are served
        /// elsewhere once the lease runs out; until then a request is refused (503, retry).
        case ownerSilent
    }

    private struct Held {
        enum Phase {
            /// The local copy is being brought to the changelog's end: nothing opens it.
            case catchingUp
            /// Its rules, seed and the previous owner's onDisconnect writes run: only the
            /// takeover itself opens it; requests wait (503).
            case opening
            /// Requests are served.
            case serving
        }

        var lease: NamespaceLease
        /// When the last successful renewal (or the takeover) was sent: the lease runs at least
        /// until then + the lease time by PostgreSQL's clock, so serving stops before that point.
        var renewedAt: ContinuousClock.Instant
        var phase: Phase
        /// When a request was last routed here (`route`), for `dropIdleUnwritten`.
        var usedAt: ContinuousClock.Instant
    }

    /// Serving stops this long before the lease may run out by PostgreSQL's clock (clock rates
    /// differ a little; a renewal's answer may come late).
    static let safetyMargin = Duration.milliseconds(250)

    let directory: ClusterDirectory
    /// Forwards to other nodes: a refused connection fails at once (no retries until a
    /// deadline), redirects are passed back to the client, bodies are passed as they are.
    let client: HTTPClient
    let nodeID: String
    /// The URL other nodes reach this node at (`--advertise`, else known once it listens).
    private let url: Mutex<String?>
    let leaseSeconds: Int
    private let seedFile: String?
    /// The cluster's rules (`ClusterHooks.rules`).
    let sharedRules: ClusterSharedRules
    /// The served namespaces' snapshots (taken by the owner, installed by a node far behind).
    let snapshots: ClusterSnapshots
    let logger: Logger
    private let held = Mutex<[String: Held]>([:])
    private let takeovers = Mutex<[String: Task<Route, any Error>]>([:])
    /// Where namespaces other nodes own were last found, for a third of a lease: a request for
    /// them costs no query (`forgetOwner` drops an entry whose node did not answer).
    private let known = Mutex<[String: (url: String, until: ContinuousClock.Instant)]>([:])
    private let database = Mutex<Database?>(nil)
    /// Told when the node stops serving a namespace (its realtime sessions end).
    private let onRelease = Mutex<[@Sendable (String) -> Void]>([])
    /// The live connections of a namespace here (`observeConnections`).
    private let connections = Mutex<@Sendable (String) -> Int>({ _ in 0 })
    /// The served namespaces' rules logs' newest positions, as last followed (`followRules`).
    let followedRules = Mutex<[String: Int64]>([:])

    init(
        directory: ClusterDirectory,
        nodeID: String,
        url: String?,
        leaseSeconds: Int,
        snapshotEntries: Int = 50_000,
        seedFile: String?,
        logger: Logger
    ) {
        self.directory = directory
        self.nodeID = nodeID
        self.url = Mutex(url)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            // Event streams send a keep-alive every 30 s: 90 s without a byte is a stuck owner.
            timeout: .init(connect: .seconds(3), read: .seconds(90)),
            decompression: .disabled
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        // A forwarded event stream holds its connection as long as its client: never make other
        // forwards to the same node wait for a free one.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 100_000
        client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        self.leaseSeconds = leaseSeconds
        snapshots = ClusterSnapshots(directory: directory, entries: snapshotEntries, logger: logger)
        self.seedFile = seedFile
        sharedRules = ClusterSharedRules(directory: directory, nodeID: nodeID)
        self.logger = logger
    }

    /// What the database asks of the node.
    var hooks: ClusterHooks {
        ClusterHooks(
            owns: { [weak self] name in self?.opens(name) ?? false },
            sink: { [weak self] name in self?.sink(for: name) ?? Self.refusingSink(name) },
            rules: sharedRules,
            passEnded: { [directory] in directory.sendHeldAppends() }
        )
    }

    /// The database whose namespaces this node serves (set once it is open).
    func attach(_ database: Database) {
        self.database.withLock { $0 = database }
    }

    /// The database `attach` set; nil before.
    var attachedDatabase: Database? {
        database.withLock { $0 }
    }

    func observeReleases(_ observer: @escaping @Sendable (String) -> Void) {
        onRelease.withLock { $0.append(observer) }
    }

    /// True while `name` may be opened here: serving, or being opened by its takeover.
    func opens(_ name: String) -> Bool {
        held.withLock { held in
            guard let entry = held[name], entry.phase != .catchingUp else { return false }
            return isCurrent(entry)
        }
    }

    /// True while the node serves `name`: caught up and opened, and its lease not run out by
    /// this node's reckoning. Notes the use (a namespace in use is not dropped as idle).
    func serves(_ name: String) -> Bool {
        held.withLock { held in
            guard let entry = held[name], isServing(entry) else { return false }
            held[name]?.usedAt = .now
            return true
        }
    }

    /// Whether a namespace has live connections here (the realtime hub's count).
    func observeConnections(_ count: @escaping @Sendable (String) -> Int) {
        connections.withLock { $0 = count }
    }

    /// Caught up, opened, and its lease not run out by this node's clock.
    private func isServing(_ entry: Held) -> Bool {
        entry.phase == .serving && isCurrent(entry)
    }

    private func isCurrent(_ entry: Held) -> Bool {
        ContinuousClock.now - entry.renewedAt < .seconds(leaseSeconds) - Self.safetyMargin
    }

    /// Where a request for `name` goes; takes the namespace over when nobody holds it.
    func route(_ name: String) async throws -> Route {
        if serves(name) { return .local }
        if let url = rememberedOwner(name) { return .forward(url) }
        let task = takeovers.withLock { takeovers -> Task<Route, any Error> in
            if let running = takeovers[name] { return running }
            let task = Task { try await self.acquire(name) }
            takeovers[name] = task
            return task
        }
        // Only the task this caller waited for is removed: a later caller's may be running.
        defer { takeovers.withLock { if $0[name] == task { $0[name] = nil } } }
        return try await task.value
    }

    private func acquire(_ name: String) async throws -> Route {
        if serves(name) { return .local }
        // A lease this node holds is being caught up or opened (or was just lost and not yet
        // cleared): never take the namespace twice at once.
        if held.withLock({ $0[name] != nil }) {
            throw StoreError(.notOwner, "Namespace '\(name)' is being taken over by this node; retry.")
        }
        let started = ContinuousClock.now
        switch try await directory.acquire(namespace: name, node: nodeID, leaseSeconds: leaseSeconds) {
        case .other(let node):
            guard node.alive else { return .ownerSilent }
            let until = ContinuousClock.now + .milliseconds(leaseSeconds * 1000 / 3)
            known.withLock { $0[name] = (node.url, until) }
            return .forward(node.url)
        case .mine(let lease):
            guard let database = database.withLock({ $0 }) else {
                throw StoreError(.notOwner, "The node is starting; retry.")
            }
            held.withLock { $0[name] = Held(lease: lease, renewedAt: started, phase: .catchingUp, usedAt: started) }
            do {
                database.release(name)
                let applied = try await catchUp(name, to: lease, in: database)
                held.withLock { if $0[name]?.lease == lease { $0[name]?.phase = .opening } }
                let ran = try await database.takeOver(name, seedFile: lease.lsn == 0 ? seedFile : nil, logger: logger)
                held.withLock { if $0[name]?.lease == lease { $0[name]?.phase = .serving } }
                logger.notice(
                    "namespace taken over",
                    metadata: [
                        "hearth.ns": "\(name)", "hearth.cluster.epoch": "\(lease.epoch)",
                        "hearth.cluster.lsn": "\(lease.lsn)", "hearth.cluster.applied": "\(applied)",
                        "hearth.count": "\(ran)", "hearth.duration": "\(ContinuousClock.now - started)",
                    ]
                )
                return .local
            } catch {
                lose(lease, because: "its takeover failed: \(error)")
                throw error
            }
        }
    }

    /// Brings the local copy of `name` to the lease's position; the number of entries applied.
    private func catchUp(_ name: String, to lease: NamespaceLease, in database: Database) async throws -> Int {
        var position = try database.replicationPosition(of: name)
        if position == nil {
            // Keys without a position were not written through the changelog (a data directory
            // from before the cluster, or a snapshot half installed): the cluster's alone count.
            try database.discardReplica(name)
        }
        let snapshot = try await directory.snapshotHead(of: name)
        if let local = position {
            let theirs: Int64?
            if let snapshot, Int64(local.lsn) <= snapshot.lsn {
                // Behind the newest snapshot: the changelog may no longer reach back that far.
                theirs = Int64(local.lsn) == snapshot.lsn ? snapshot.epoch : nil
            } else {
                theirs = try await directory.epoch(of: name, at: Int64(local.lsn))
            }
            if local.lsn > UInt64(lease.lsn) || theirs != Int64(local.epoch) {
                if snapshot.map({ Int64(local.lsn) > $0.lsn }) ?? true {
                    logger.warning(
                        "local copy holds commits the changelog does not: cleared",
                        metadata: ["hearth.ns": "\(name)", "hearth.cluster.lsn": "\(local.lsn)"]
                    )
                }
                try database.discardReplica(name)
                position = nil
            }
        }
        if position == nil, let snapshot {
            try await snapshots.install(snapshot, of: name, into: database)
            position = ReplicationPosition(lsn: UInt64(snapshot.lsn), epoch: UInt64(snapshot.epoch))
        }
        var lsn = Int64(position?.lsn ?? 0)
        var applied = 0
        while lsn < lease.lsn {
            let entries = try await directory.changelog(namespace: name, after: lsn, limit: 500)
            guard let last = entries.last, entries.first?.lsn == lsn + 1 else {
                throw ClusterError.inconsistent(
                    "namespace '\(name)' has no changelog entry after \(lsn) (its position is \(lease.lsn)): a newer snapshot replaced it; retry"
                )
            }
            try database.applyReplicated(
                entries.map { ReplicatedEntry(lsn: UInt64($0.lsn), epoch: UInt64($0.epoch), batch: $0.batch) },
                to: name
            )
            lsn = last.lsn
            applied += entries.count
        }
        return applied
    }

    /// The changelog sink of an owned namespace: each round's append is sent on the commits'
    /// connection as soon as the writer hands it over (they run there in order); a failed one
    /// gives the namespace up.
    private func sink(for name: String) -> ReplicationSink {
        guard let lease = held.withLock({ $0[name]?.lease }) else { return Self.refusingSink(name) }
        return ReplicationSink(epoch: UInt64(lease.epoch)) { [weak self] batches, after, timing, completion in
            guard let self else { return completion(ClusterError.fenced(namespace: name, epoch: lease.epoch)) }
            directory.append(
                batches.map { ByteBuffer(bytes: $0) },
                after: Int64(after),
                lease: lease,
                heldForPass: timing == .afterPass
            )
            .whenComplete { result in
                switch result {
                case .success:
                    completion(nil)
                case .failure(let error as ClusterError) where error.isFenced:
                    self.lose(lease, because: "a commit was not taken into the changelog: \(error)")
                    completion(error)
                case .failure(let error):
                    // No answer: the commit may have happened before the connection failed.
                    // Its writes are acknowledged if it did, refused only if it did not.
                    Task {
                        if await self.settle(lease, after: Int64(after), error: error) {
                            completion(nil)
                            self.lose(lease, because: "a commit's answer was lost (it committed)")
                        } else {
                            self.lose(lease, because: "a commit was not taken into the changelog: \(error)")
                            completion(error)
                        }
                    }
                }
            }
        }
    }

    /// Whether an append of `lease` after `lsn` whose answer never came committed
    /// (`ClusterDirectory.settle`, which fences the epoch first), asked until PostgreSQL answers
    /// or `settleTime` passed; false when it did not commit or it could not be told (then its
    /// writes are refused as before: the one case where a refused write may have committed).
    private func settle(_ lease: NamespaceLease, after lsn: Int64, error: any Error) async -> Bool {
        let deadline = ContinuousClock.now + settleTime
        while true {
            do {
                let committed = try await directory.settle(lease, after: lsn)
                logger.warning(
                    "a commit's answer was lost; settled",
                    metadata: [
                        "hearth.ns": "\(lease.namespace)", "hearth.cluster.epoch": "\(lease.epoch)",
                        "hearth.committed": "\(committed)", "hearth.error": "\(error)",
                    ]
                )
                return committed
            } catch {
                guard ContinuousClock.now < deadline else {
                    logger.error(
                        "a commit's answer was lost and PostgreSQL did not say whether it committed",
                        metadata: ["hearth.ns": "\(lease.namespace)", "hearth.error": "\(error)"]
                    )
                    return false
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// How long a commit whose answer was lost is asked after (a PostgreSQL failover takes
    /// seconds): at least 10 s, and two leases.
    private var settleTime: Duration { max(.seconds(10), .seconds(leaseSeconds * 2)) }

    private static func refusingSink(_ name: String) -> ReplicationSink {
        ReplicationSink(epoch: 0) { _, _, completion in
            completion(StoreError(.notOwner, "Namespace '\(name)' is not served by this node; retry."))
        }
    }

    /// The node that owns `name` when this node knows it without asking PostgreSQL (a route
    /// learned within the last third of a lease); nil when this node serves it or must ask.
    func knownOwner(_ name: String) -> String? {
        serves(name) ? nil : rememberedOwner(name)
    }

    /// Where `name` was found, while that is fresh; a stale entry is dropped.
    private func rememberedOwner(_ name: String) -> String? {
        let now = ContinuousClock.now
        return known.withLock { known -> String? in
            guard let entry = known[name] else { return nil }
            if entry.until > now { return entry.url }
            known[name] = nil
            return nil
        }
    }

    /// Forgets where `name` was found (its node did not answer a forward).
    func forgetOwner(_ name: String) {
        _ = known.withLock { $0.removeValue(forKey: name) }
    }

    /// Stops serving the namespace of `lease` here, unless the node took it again since (a
    /// newer lease is not this one's to drop).
    private func lose(_ lease: NamespaceLease, because reason: String) {
        let name = lease.namespace
        let dropped = held.withLock { held -> Bool in
            guard held[name]?.lease == lease else { return false }
            held[name] = nil
            return true
        }
        guard dropped else { return }
        logger.warning("namespace given up", metadata: ["hearth.ns": "\(name)", "hearth.reason": "\(reason)"])
        database.withLock { $0 }?.release(name)
        for observer in onRelease.withLock({ $0 }) { observer(name) }
    }

    // MARK: Running

    /// After a renewal PostgreSQL did not answer in time, the next is sent this soon rather
    /// than a third of a lease later: one lost answer must not cost the node its leases.
    static let renewalRetry = Duration.milliseconds(500)
    /// A renewal slower than this is logged: PostgreSQL (or this node) is slow enough that
    /// leases are at risk.
    static let slowRenewal = Duration.seconds(1)

    /// Joins, then renews every lease and beats a few times a lease until cancelled; then
    /// gives every lease up so other nodes take the namespaces at once.
    func run() async {
        let period = Duration.milliseconds(leaseSeconds * 1000 / 3)
        await withTaskGroup(of: Void.self) { group in
            // Leases that may have run out are given up by this node's clock alone, whatever
            // PostgreSQL answers or how long it takes.
            group.addTask {
                while !Task.isCancelled {
                    self.expire()
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            // Renewals keep their own pace, a period from the start of one to the start of the
            // next, whatever the heartbeat's other work costs.
            group.addTask {
                while !Task.isCancelled {
                    let started = ContinuousClock.now
                    let answered = await self.renewLeases()
                    try? await Task.sleep(until: answered ? started + period : .now + Self.renewalRetry)
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    await self.beat()
                    try? await Task.sleep(for: period)
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.rulesFollowingInterval)
                    await self.followRules()
                }
            }
            await group.waitForAll()
        }
        await leave()
    }

    /// Gives up every lease whose time may be over.
    private func expire() {
        let now = ContinuousClock.now
        let over = held.withLock { held in held.values.filter { !isCurrent($0) }.map { ($0.lease, $0.renewedAt) } }
        for (lease, renewedAt) in over {
            lose(
                lease,
                because: "its lease ran out before a renewal came back (the last was sent \(now - renewedAt) ago)"
            )
        }
    }

    /// The node listens on `port`: it joins (with `http://HOST:PORT` unless `--advertise` said
    /// otherwise), so other nodes can forward to it.
    func listening(host: String, port: Int, scheme: String) {
        let url = url.withLock { url -> String in
            if let url { return url }
            let made = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
            url = made
            return made
        }
        Task {
            do {
                try await directory.join(node: nodeID, url: url)
                logger.info(
                    "joined the cluster",
                    metadata: ["hearth.cluster.node": "\(nodeID)", "hearth.url": "\(url)"]
                )
            } catch {
                logger.error("could not join the cluster", metadata: ["hearth.error": "\(error)"])
            }
        }
    }

    /// Renews every lease held here, in one statement: a node holding thousands renews them as
    /// fast as one. False when PostgreSQL did not answer (serving stops when the leases may run
    /// out, `expire`).
    private func renewLeases() async -> Bool {
        let leases = held.withLock { $0.values.map(\.lease) }
        guard !leases.isEmpty else { return true }
        let sent = ContinuousClock.now
        do {
            let renewed = try await directory.renew(leases, leaseSeconds: leaseSeconds)
            let took = ContinuousClock.now - sent
            if took > Self.slowRenewal {
                logger.warning(
                    "a lease renewal's answer came late",
                    metadata: ["hearth.took": "\(took)", "hearth.cluster.leases": "\(leases.count)"]
                )
            }
            held.withLock { held in
                for lease in renewed where held[lease.namespace]?.lease == lease {
                    held[lease.namespace]?.renewedAt = sent
                }
            }
            for lease in leases where !renewed.contains(lease) {
                lose(lease, because: "another node took it over")
            }
            return true
        } catch {
            logger.warning("lease renewal failed", metadata: ["hearth.error": "\(error)"])
            return false
        }
    }

    /// The node's heartbeat, then the chores of its namespaces: idle ones dropped, snapshots.
    private func beat() async {
        do {
            // A join that failed at start is made here (once the node knows its URL).
            if let url = url.withLock({ $0 }) { try await directory.join(node: nodeID, url: url) }
        } catch {
            logger.warning("cluster heartbeat failed", metadata: ["hearth.error": "\(error)"])
        }
        await dropIdleUnwritten()
        if let database = database.withLock({ $0 }) {
            let serving = held.withLock { held in held.filter { $0.value.phase == .serving }.map(\.value.lease) }
            snapshots.takeIfDue(
                serving,
                in: database,
                stillHeld: { [weak self] lease in
                    self?.held.withLock { $0[lease.namespace]?.lease == lease } ?? false
                }
            )
        }
    }

    /// Gives up, and removes from the cluster, every namespace held here that was never
    /// written, has no connection here and had no request for a whole lease: whoever asked for
    /// it (an admin's look, a WebSocket that authenticates only after it connects) costs the
    /// cluster nothing once gone. Only an unwritten namespace's row is removed (the condition
    /// is PostgreSQL's: a commit that raced it keeps the namespace).
    private func dropIdleUnwritten() async {
        let now = ContinuousClock.now
        let count = connections.withLock { $0 }
        let database = database.withLock { $0 }
        let idle = held.withLock { held in
            held.values.filter { $0.phase == .serving && now - $0.usedAt > .seconds(leaseSeconds) }.map(\.lease)
        }
        for lease in idle where count(lease.namespace) == 0 {
            guard ((try? database?.replicationPosition(of: lease.namespace)) ?? nil)?.lsn ?? 0 == 0 else { continue }
            do {
                if try await directory.dropUnwritten(lease) {
                    lose(lease, because: "it was never written and nobody used it for a lease")
                }
            } catch {
                logger.warning(
                    "dropping an idle namespace failed",
                    metadata: ["hearth.ns": "\(lease.namespace)", "hearth.error": "\(error)"]
                )
            }
        }
    }

    private func leave() async {
        let leases = held.withLock { held -> [NamespaceLease] in
            defer { held = [:] }
            return held.values.map(\.lease)
        }
        for lease in leases {
            try? await directory.release(lease)
        }
    }

    /// `GET /.well-known/hearth/cluster`: the nodes and who owns which namespace.
    func view() async throws -> (nodes: [ClusterNode], owners: [String: String]) {
        (try await directory.nodes(leaseSeconds: leaseSeconds), try await directory.owners())
    }

    /// The namespaces this node serves now, by its own reckoning (no query: it answers while
    /// PostgreSQL does not), each with the epoch of its lease.
    func serving() -> [String: Int64] {
        held.withLock { held in
            var serving: [String: Int64] = [:]
            for (name, entry) in held where isServing(entry) {
                serving[name] = entry.lease.epoch
            }
            return serving
        }
    }
}
