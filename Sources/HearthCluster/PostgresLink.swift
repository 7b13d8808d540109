import HearthNIO
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// One PostgreSQL connection, made on first use and made again after it breaks. Queries sent
/// on it run one after another (PostgreSQL's protocol), so a link serializes what goes over
/// it: the node keeps one for commits and one for leases and heartbeats, so a slow commit never
/// delays a lease renewal.
final class PostgresLink: Sendable {
    private let address: ClusterAddress
    private let logger: Logger
    private let current = Mutex<EventLoopFuture<PostgresConnection>?>(nil)
    /// Where its futures complete, and where its connection runs.
    let eventLoop: any EventLoop
    /// Runs a prepared statement's async code (postgres-nio's API for them) on `eventLoop`: the
    /// statement is sent and its rows read with no hop through Swift's global pool.
    private let tasks: EventLoopTaskExecutor
    /// How long a query may take before it fails and its connection is dropped: a PostgreSQL
    /// that died without closing its connections (a killed primary behind HAProxy, a cut
    /// network) would otherwise hold every query behind it forever.
    private let timeout: TimeAmount

    /// - Parameters:
    ///   - name: which link this is, in its log lines (`commits`, `control`).
    ///   - timeout: how long a query may take (`timeout`).
    init(address: ClusterAddress, name: String, eventLoop: any EventLoop, timeout: TimeAmount, logger: Logger) {
        self.address = address
        self.eventLoop = eventLoop
        tasks = EventLoopTaskExecutor(eventLoop: eventLoop)
        self.timeout = timeout
        var logger = logger
        logger[metadataKey: "hearth.cluster.link"] = "\(name)"
        self.logger = logger
    }

    /// Runs `query` and collects its rows. Queries are sent in the order of the calls (each goes
    /// through the connection's event loop in turn), so PostgreSQL runs them in that order.
    func query(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> {
        let used = connection()
        return bounded(
            used.flatMap { connection in
                connection.query(query, logger: self.logger)
            },
            on: used
        )
    }

    /// Runs a prepared statement (prepared on the connection at its first use) and collects its
    /// rows: no parse or plan per call. Its task runs on the link's loop, the connection's: the
    /// statement is sent and its answer read there, with no hop through Swift's global pool (W1
    /// at a cluster's owner 1.13× that of tasks on the pool, decision 0021's addendum).
    func execute<Statement: PostgresPreparedStatement>(_ statement: Statement) -> EventLoopFuture<[Statement.Row]>
    where Statement.Row: Sendable {
        let used = connection()
        return bounded(
            used.flatMap { connection in
                let promise = connection.eventLoop.makePromise(of: [Statement.Row].self)
                Task(executorPreference: self.tasks) {
                    do {
                        var rows: [Statement.Row] = []
                        for try await row in try await connection.execute(statement, logger: self.logger) {
                            rows.append(row)
                        }
                        promise.succeed(rows)
                    } catch {
                        promise.fail(error)
                    }
                }
                return promise.futureResult
            },
            on: used
        )
    }

    /// `work`, failed with `.unavailable` when it fails or takes longer than `timeout`; then
    /// the connection it used is dropped, so the next query connects again.
    private func bounded<T: Sendable>(
        _ work: EventLoopFuture<T>,
        on used: EventLoopFuture<PostgresConnection>
    ) -> EventLoopFuture<T> {
        let promise = eventLoop.makePromise(of: T.self)
        let timeout = self.timeout
        let timer = eventLoop.scheduleTask(in: timeout) {
            promise.fail(ClusterError.unavailable("no answer within \(timeout.nanoseconds / 1_000_000) ms"))
        }
        work.whenComplete { result in
            timer.cancel()
            promise.completeWith(result)
        }
        return promise.futureResult.flatMapErrorThrowing { error in
            self.forget(used)
            if let error = error as? ClusterError { throw error }
            throw ClusterError.unavailable(PostgresLink.describe(error))
        }
    }

    func query(_ query: PostgresQuery) async throws -> PostgresQueryResult {
        try await self.query(query).get()
    }

    /// Closes the connection, if one is open.
    func close() async {
        let connection = current.withLock { current -> EventLoopFuture<PostgresConnection>? in
            defer { current = nil }
            return current
        }
        if let connection = try? await connection?.get() {
            try? await connection.close()
        }
    }

    private func connection() -> EventLoopFuture<PostgresConnection> {
        current.withLock { current in
            if let current { return current }
            var configuration = PostgresConnection.Configuration(
                host: address.host,
                port: address.port,
                username: address.user,
                password: address.password,
                database: address.database,
                tls: .disable
            )
            configuration.options.connectTimeout = .seconds(5)
            let made = PostgresConnection.connect(
                on: eventLoop,
                configuration: configuration,
                id: 1,
                logger: logger
            )
            current = made
            return made
        }
    }

    /// Drops a connection that failed, so the next query connects again; one made since
    /// (another query's failure came first) is kept.
    private func forget(_ failed: EventLoopFuture<PostgresConnection>) {
        let dropped = current.withLock { current -> EventLoopFuture<PostgresConnection>? in
            guard current === failed else { return nil }
            defer { current = nil }
            return current
        }
        dropped?.whenSuccess { connection in
            let closed: EventLoopFuture<Void> = connection.close(); _ = closed
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? ClusterError { return error.description }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }
}
