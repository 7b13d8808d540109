import NIOCore
import PostgresNIO
import Synchronization

/// A node's changelog appends, sent as commit groups: one statement in flight on the commits
/// link, and every append asked for meanwhile, whatever its namespace, goes in the next one. A
/// node serving many namespaces then pays one PostgreSQL round trip and one WAL flush for all the
/// namespaces that wrote meanwhile, rather than one each in turn (decision 0023); one namespace
/// alone gets the one append in flight it had (decision 0021). Each namespace's part is fenced
/// on its own: a namespace another node took over gets nothing appended and fails with
/// `ClusterError.fenced`, and the others in its group commit.
///
/// An append made while more of the node's writers' rounds follow at once (`held`) waits, when
/// no group is in flight, for them: for an append that is not held, or for `sendHeld` at the
/// end of the writers' pass (a pass holds it for at most the rounds that waited when it
/// began). Their appends then go as one group, not the first alone and the rest after it.
final class CommitGroups: Sendable {
    struct Append {
        var lease: NamespaceLease
        var after: Int64
        var batches: [ByteBuffer]
        var promise: EventLoopPromise<Void>
    }

    private struct State {
        var waiting: [Append] = []
        var sending = false
    }

    private let link: PostgresLink
    private let state = Mutex(State())

    init(link: PostgresLink) {
        self.link = link
    }

    /// Appends `batches` at `after + 1`, `after + 2`, … under `lease` in the next commit group.
    /// The future completes on the commits link's event loop (no hop after the answer).
    /// - Parameter held: the append may wait for the end of the writers' pass (`sendHeld`).
    func append(
        _ batches: [ByteBuffer],
        after: Int64,
        lease: NamespaceLease,
        held: Bool = false
    ) -> EventLoopFuture<Void> {
        let promise = link.eventLoop.makePromise(of: Void.self)
        let send = state.withLock { state -> Bool in
            state.waiting.append(Append(lease: lease, after: after, batches: batches, promise: promise))
            return !held && Self.startSending(&state)
        }
        if send { sendNext() }
        return promise.futureResult
    }

    /// Sends what waits, held appends included, unless a group is in flight (what waits goes
    /// when it returns).
    func sendHeld() {
        if state.withLock({ Self.startSending(&$0) }) { sendNext() }
    }

    /// Marks a group as sending when none is and appends wait; true when the caller sends it.
    private static func startSending(_ state: inout State) -> Bool {
        guard !state.sending, !state.waiting.isEmpty else { return false }
        state.sending = true
        return true
    }

    /// Sends every waiting append (one per namespace: a namespace's later one waits for the
    /// next group) as one statement; when it completes, tells each, then sends what waited.
    private func sendNext() {
        let group = state.withLock { state -> [Append] in
            var seen = Set<String>()
            var group: [Append] = []
            var rest: [Append] = []
            for append in state.waiting {
                if seen.insert(append.lease.namespace).inserted { group.append(append) } else { rest.append(append) }
            }
            state.waiting = rest
            if group.isEmpty { state.sending = false }
            return group
        }
        guard !group.isEmpty else { return }
        // One namespace alone (the common case of a node with one busy namespace) takes the
        // simpler statement: PostgreSQL plans and runs it for less.
        // Either way: how many entries each namespace got.
        let appended: EventLoopFuture<[String: Int]>
        if group.count == 1, let only = group.first {
            appended = link.execute(AppendStatement(only)).map { [only.lease.namespace: $0.count] }
        } else {
            appended = link.execute(GroupAppendStatement(group)).map { rows in
                rows.reduce(into: [:]) { counts, namespace in counts[namespace, default: 0] += 1 }
            }
        }
        appended.whenComplete { result in
            switch result {
            case .success(let appended):
                for append in group {
                    if appended[append.lease.namespace] == append.batches.count {
                        append.promise.succeed()
                    } else {
                        append.promise.fail(
                            ClusterError.fenced(namespace: append.lease.namespace, epoch: append.lease.epoch)
                        )
                    }
                }
            case .failure(let error):
                for append in group { append.promise.fail(error) }
            }
            self.sendNext()
        }
    }
}

/// A commit group's appends, prepared once per connection: each namespace's position moves
/// from its `after` by its entry count only under its epoch and only from that position, and
/// its entries are inserted only through that update (one statement, one transaction). It
/// answers one row (the namespace) per entry inserted.
private struct GroupAppendStatement: PostgresPreparedStatement {
    static let sql = """
        WITH fence AS (
            UPDATE hearth_namespaces AS n SET lsn = claim.after + claim.count
            FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) AS claim(ns, epoch, after, count)
            WHERE n.ns = claim.ns AND n.epoch = claim.epoch AND n.lsn = claim.after
            RETURNING n.ns, claim.epoch, claim.after
        )
        INSERT INTO hearth_changelog (ns, lsn, epoch, batch)
        SELECT fence.ns, fence.after + entry.position, fence.epoch, entry.batch
        FROM fence
        JOIN unnest($5::text[], $6::bigint[], $7::bytea[]) AS entry(ns, position, batch) ON entry.ns = fence.ns
        RETURNING ns
        """
    typealias Row = String

    let namespaces: [String]
    let epochs: [Int64]
    let afters: [Int64]
    let counts: [Int64]
    let entryNamespaces: [String]
    let entryPositions: [Int64]
    let entryBatches: [ByteBuffer]

    init(_ group: [CommitGroups.Append]) {
        namespaces = group.map(\.lease.namespace)
        epochs = group.map(\.lease.epoch)
        afters = group.map(\.after)
        counts = group.map { Int64($0.batches.count) }
        var entryNamespaces: [String] = []
        var entryPositions: [Int64] = []
        var entryBatches: [ByteBuffer] = []
        for append in group {
            for (index, batch) in append.batches.enumerated() {
                entryNamespaces.append(append.lease.namespace)
                entryPositions.append(Int64(index + 1))
                entryBatches.append(batch)
            }
        }
        self.entryNamespaces = entryNamespaces
        self.entryPositions = entryPositions
        self.entryBatches = entryBatches
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(namespaces)
        bindings.append(epochs)
        bindings.append(afters)
        bindings.append(counts)
        bindings.append(entryNamespaces)
        bindings.append(entryPositions)
        bindings.append(entryBatches)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String {
        try row.decode(String.self)
    }
}

/// One namespace's append, prepared once per connection: its position moves from `after` to
/// `after + batches.count` only under its epoch, and the rows are inserted only through that
/// update (one statement, one transaction). It answers one row per entry inserted.
private struct AppendStatement: PostgresPreparedStatement {
    static let sql = """
        WITH fence AS (
            UPDATE hearth_namespaces SET lsn = $3 + cardinality($4::bytea[])
            WHERE ns = $1 AND epoch = $2 AND lsn = $3
            RETURNING ns
        )
        INSERT INTO hearth_changelog (ns, lsn, epoch, batch)
        SELECT fence.ns, $3 + entry.position, $2, entry.batch
        FROM fence, unnest($4::bytea[]) WITH ORDINALITY AS entry(batch, position)
        RETURNING lsn
        """
    typealias Row = Int64

    let append: CommitGroups.Append

    init(_ append: CommitGroups.Append) {
        self.append = append
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(append.lease.namespace)
        bindings.append(append.lease.epoch)
        bindings.append(append.after)
        bindings.append(append.batches)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 {
        try row.decode(Int64.self)
    }
}
