import Foundation
import HearthAccounts
import HearthDatabase
import HearthStorage
import Hummingbird
public import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The Hearth server: the Firebase REST API, Server-Sent Events and the realtime WebSocket
/// protocol over a Hearth store.
public enum HearthServer {
    /// The `Server` header of every HTTP answer.
    static let serverName = "Hearth"

    /// Serves until SIGTERM or SIGINT, then drains HTTP and closes the store.
    public static func run(configuration: HearthServerConfiguration, logger: Logger) async throws {
        raiseOpenFileLimit(logger: logger)
        let directory = configuration.dataDirectory
        let (group, _) = try await makeServiceGroup(
            configuration: configuration,
            logger: logger,
            handleSignals: true,
            onPort: { port in
                let scheme = configuration.tlsCertificatePath == nil ? "http" : "https"
                let host = ["0.0.0.0", "::", ""].contains(configuration.host) ? "127.0.0.1" : configuration.host
                let shown = host.contains(":") ? "[\(host)]" : host
                do {
                    try RunningServerFile.write(
                        in: directory,
                        url: "\(scheme)://\(shown):\(port)",
                        adminSecret: configuration.adminSecret
                    )
                } catch {
                    logger.warning("The CLI will not find this server by itself: \(error)")
                }
            }
        )
        defer { RunningServerFile.remove(in: directory) }
        do {
            try await group.run()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw HearthServerError(
                .addressInUse,
                "Cannot listen on \(configuration.host):\(configuration.port): the address is already in use."
            )
        }
    }

    /// Starts serving in the background (for tests; `port` 0 picks a free port) and returns once
    /// the server listens.
    public static func start(configuration: HearthServerConfiguration, logger: Logger) async throws -> RunningServer {
        let (ports, portContinuation) = AsyncThrowingStream.makeStream(of: Int.self)
        let (group, _) = try await makeServiceGroup(
            configuration: configuration,
            logger: logger,
            handleSignals: false,
            onPort: { port in portContinuation.yield(port) }
        )
        let task = Task {
            do {
                try await group.run()
                portContinuation.finish()
            } catch {
                portContinuation.finish(throwing: error)
                throw error
            }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = try await iterator.next() else {
            throw HearthServerError("The server stopped before it listened.")
        }
        return RunningServer(port: port, group: group, task: task)
    }

    static func makeServiceGroup(
        configuration: HearthServerConfiguration,
        logger: Logger,
        handleSignals: Bool,
        onPort: @escaping @Sendable (Int) -> Void
    ) async throws -> (ServiceGroup, RESTService) {
        if let problem = configuration.realtime.tuning.problem { throw HearthServerError(problem) }
        if let problem = configuration.presence.problem { throw HearthServerError(problem) }
        let endpoint = RealtimeEndpoint(tuning: configuration.realtime.tuning)
        let cap = ConnectionCap(
            limit: configuration.connections.connectionLimit(openFileLimit: OpenFileLimit.current()?.soft),
            perAddressLimit: configuration.connections.maxConnectionsPerAddress,
            limitsLoopback: configuration.connections.limitsLoopback,
            logger: logger
        )
        let relays = ClusterRESTRelays()
        let directWrites = DirectRESTWrites()
        let server = try ServerBuilder.httpServer(
            configuration,
            realtime: endpoint,
            relays: relays,
            directWrites: directWrites,
            cap: cap
        )
        let accounts = try AccountsBootstrap.open(configuration, logger: logger)
        let hub = RealtimeHub()
        let metrics = ServerMetrics(
            sources: .init(
                openConnections: { cap.openConnections },
                realtimeSessions: { hub.count },
                dataDirectory: configuration.dataDirectory
            )
        )
        let membership: ClusterMembership?
        do {
            membership = try await ClusterBootstrap.join(configuration, logger: logger)
        } catch {
            accounts.close()
            throw error
        }
        if let membership {
            do {
                try await accounts.replicate(
                    through: ClusterSharedLog(
                        directory: membership.directory,
                        stream: "accounts",
                        nodeID: membership.nodeID
                    ),
                    snapshotEntries: Int64(membership.snapshots.entries)
                )
            } catch {
                await membership.directory.close()
                accounts.close()
                throw HearthServerError("Cannot follow the cluster's accounts: \(error.message)")
            }
        }
        let database: Database
        do {
            database = try await DatabaseBootstrap.open(
                configuration,
                logger: logger,
                activity: metrics.databaseActivity,
                cluster: membership?.hooks
            )
        } catch {
            await membership?.directory.close()
            accounts.close()
            throw error
        }
        membership?.attach(database)
        let objects: ObjectStore
        do {
            objects = try ObjectStore(
                dataDirectory: configuration.dataDirectory,
                syncMode: configuration.syncMode,
                maxObjectSize: configuration.maxObjectSize,
                maxSessions: configuration.maxResumableSessions,
                maxSessionBytes: configuration.maxResumableBytes
            )
        } catch {
            database.close()
            accounts.close()
            throw HearthServerError("Cannot open the files' store: \(error.message)")
        }
        let storageRules: StorageRulesCatalog
        do {
            storageRules = try StorageRulesCatalog(path: configuration.storageRulesPath, logger: logger)
        } catch {
            objects.close()
            database.close()
            accounts.close()
            throw error
        }
        if let membership {
            do {
                let log = ClusterSharedLog(
                    directory: membership.directory,
                    stream: "storage",
                    nodeID: membership.nodeID
                )
                let bytes = ClusterObjectBytes(directory: membership.directory)
                let tag = ObjectStore.sessionTag(nodeID: membership.nodeID)
                let start = try await StorageEndpoint.run {
                    try objects.replicate(
                        through: log,
                        bytes: bytes,
                        sessionTag: tag ?? "",
                        snapshotEntries: Int64(membership.snapshots.entries)
                    )
                }
                if start.seeded > 0 || start.cleared || start.swept > 0 {
                    logger.info(
                        "storage follows the cluster's",
                        metadata: [
                            "hearth.seeded": "\(start.seeded)", "hearth.cleared": "\(start.cleared)",
                            "hearth.swept": "\(start.swept)",
                        ]
                    )
                }
                try await storageRules.follow(
                    ClusterStorageRules(directory: membership.directory, nodeID: membership.nodeID)
                )
            } catch {
                await membership.directory.close()
                objects.close()
                database.close()
                accounts.close()
                throw HearthServerError("Cannot follow the cluster's files: \(error)")
            }
        }
        do {
            if let manifest = configuration.storageSeedPath {
                let seeded = try StorageSeed.importIfEmpty(
                    objects,
                    manifest: manifest,
                    bucket: configuration.defaultBucket
                )
                if seeded > 0 { logger.info("storage seeded", metadata: ["hearth.files": "\(seeded)"]) }
            }
        } catch {
            objects.close()
            database.close()
            accounts.close()
            throw (error as? HearthServerError) ?? HearthServerError("Cannot import the seed's files: \(error)")
        }
        if objects.swept > 0 { logger.info("storage swept", metadata: ["hearth.files": "\(objects.swept)"]) }
        metrics.measureNamespaces { (try? database.approximateNamespaceSizes()) ?? [:] }
        let credentials = CredentialResolver(
            adminSecret: configuration.adminSecret,
            jwtSecret: configuration.jwtSecret,
            emulator: configuration.emulator,
            projectID: configuration.accounts.projectID,
            revocations: accounts.revocations
        )
        // Connections of a previous run that stopped (crash, kill -9) before they closed; in a
        // cluster, each namespace's when a node takes it over.
        if membership == nil { await database.runStoredOnDisconnect() }
        // Nobody is connected yet: presence a stopped server left online goes offline.
        do {
            if membership == nil {
                _ = try await PresenceSweep.run(
                    database: database,
                    namespaces: configuration.presence.namespaces,
                    logger: logger
                )
            }
        } catch {
            objects.close()
            database.close()
            accounts.close()
            throw HearthServerError("Cannot set presence offline at start: \(error)")
        }
        let presence = PresenceTracker(namespaces: configuration.presence.namespaces)
        // A revoked token's WebSocket connections learn it at once (`ac`), or when its live grace
        // ends (the owner changed the password and got new tokens); SSE streams within a second.
        accounts.onRevoke { [ticker = endpoint.ticker, grace = configuration.accounts.liveSessionGrace] revocation in
            ticker.tickAll()
            guard revocation.reason == .passwordChanged || revocation.reason == .emailChanged else { return }
            Task {
                try? await Task.sleep(for: grace)
                ticker.tickAll()
            }
        }
        let realtime = RealtimeContext(
            database: database,
            credentials: RealtimeCredentials(resolver: credentials),
            hub: hub,
            presence: presence,
            configuration: configuration.realtime,
            logger: logger
        )
        endpoint.attach(realtime)
        let service = RESTService(
            database: database,
            credentials: credentials,
            maxRequestBodyBytes: configuration.maxRequestBodyBytes,
            bodyMemory: BodyMemoryBudget(
                limit: max(configuration.maxBodyMemoryBytes, configuration.maxRequestBodyBytes)
            ),
            logger: logger,
            push: configuration.pushStatus
        )
        let responder = HearthResponder(
            service: service,
            eventStreams: EventStreamService(context: realtime),
            cors: CORS(allowedOrigin: configuration.corsAllowedOrigin),
            logger: logger
        )
        let scheme = configuration.tlsCertificatePath == nil ? "http" : "https"
        var accountsEndpoint = AccountsEndpoint(
            accounts: accounts,
            credentials: credentials,
            cors: responder.cors,
            scheme: scheme,
            logger: logger
        )
        let files = StorageFiles(
            objects: objects,
            bucket: configuration.defaultBucket,
            logger: logger
        )
        let fileDeletions = FileDeletionWorker(database: database, files: files, logger: logger)
        metrics.measure("hearth_file_deletions_pending") { fileDeletions.pendingCount() }
        let callableEndpoint = CallableEndpoint(
            database: database,
            accounts: accounts,
            files: files,
            callables: configuration.callables,
            credentials: credentials,
            cors: responder.cors,
            maxBodyBytes: min(configuration.maxCallableBodyBytes, configuration.maxRequestBodyBytes),
            bodyMemory: service.bodyMemory,
            logger: logger
        )
        let clusterRouting = membership.map { membership in
            ClusterRouting(
                membership: membership,
                forwarder: ClusterForwarder(
                    client: membership.client,
                    nodeID: membership.nodeID,
                    adminSecret: configuration.adminSecret
                ),
                database: database,
                credentials: credentials,
                callables: configuration.callables,
                storageNamespace: configuration.storageNamespace,
                storageRulesReadDatabase: { storageRules.rules?.usesDatabase == true },
                runAccountDeletion: Self.accountDeletionHandler(
                    configuration.callables,
                    database: database,
                    files: files
                ),
                logger: logger
            )
        }
        accountsEndpoint.beforeDeletion = Self.accountDeletion(
            configuration.callables,
            database: database,
            files: files,
            cluster: clusterRouting
        )
        if let clusterRouting { endpoint.attach(cluster: clusterRouting) }
        // A namespace this node stops serving ends its connections here: they reconnect and
        // reach its new owner.
        membership?.observeReleases { namespace in hub.close(namespace: namespace) }
        membership?.observeConnections { namespace in hub.count(namespace: namespace) }
        let limiter = configuration.connections.maxRequestRatePerAddress.map {
            RequestRateLimiter(rate: Double($0), limitsLoopback: configuration.connections.limitsLoopback)
        }
        if let clusterRouting {
            relays.attach(ClusterRESTRelays.Routing(cluster: clusterRouting, limiter: limiter, metrics: metrics))
        }
        if configuration.directRESTWrites {
            directWrites.attach(
                DirectRESTWrites.Serving(
                    service: service,
                    cors: responder.cors,
                    metrics: metrics,
                    limiter: limiter,
                    serverName: Self.serverName,
                    cluster: clusterRouting.map { DirectRESTWrites.Serving.Cluster(routing: $0, cap: cap) }
                )
            )
        }
        let router = HearthRouter(
            metrics: metrics,
            metricsEndpoint: MetricsEndpoint(
                metrics: metrics,
                credentials: credentials,
                push: configuration.pushStatus
            ),
            limiter: limiter,
            backup: BackupEndpoint(
                database: database,
                accounts: accounts,
                objects: objects,
                credentials: credentials,
                dataDirectory: configuration.dataDirectory,
                logger: logger
            ),
            accounts: accountsEndpoint,
            callables: callableEndpoint,
            storage: StorageEndpoint(
                objects: objects,
                credentials: credentials,
                access: StorageAccess(
                    rules: storageRules,
                    database: database,
                    clock: configuration.clock,
                    namespace: configuration.storageNamespace,
                    defaultBucket: configuration.defaultBucket
                ),
                cors: responder.cors,
                scheme: scheme,
                logger: logger
            ),
            database: responder,
            cluster: clusterRouting,
            cap: clusterRouting == nil ? nil : cap
        )
        let app = Application(
            responder: router,
            server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: Self.serverName
            ),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                logger.info(
                    "listening",
                    metadata: [
                        "hearth.address": "\(scheme)://\(configuration.host):\(port)",
                        "hearth.max_connections": "\(cap.limit)",
                    ]
                )
                if let membership {
                    membership.listening(host: configuration.host, port: port, scheme: scheme)
                }
                onPort(port)
            },
            logger: logger
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: AccountsService(accounts: accounts, logger: logger)),
                    .init(service: StoreService(database: database, objects: objects, logger: logger)),
                    // Stops before the store closes.
                    .init(service: StorageFollower(objects: objects, rules: storageRules, logger: logger)),
                    // Stops before the store closes: gives this node's leases up.
                    .init(service: ClusterService(membership: membership)),
                    // Stops before the store closes; drains what a previous run left at start.
                    .init(service: fileDeletions),
                    // Stops before the store closes: everyone it left online goes offline.
                    .init(
                        service: PresenceService(
                            tracker: presence,
                            writer: PresenceWriter(database: database) { [revocations = accounts.revocations] uid in
                                revocations.status(uid: uid, authTime: .max) == .deleted
                            },
                            configuration: configuration.presence,
                            logger: logger
                        )
                    ),
                    // Stops before the store closes: the app's timers and queues.
                    .init(
                        service: DatabaseServices(
                            services: configuration.services,
                            database: database,
                            logger: logger
                        )
                    ),
                    .init(
                        service: RulesWatcher(
                            rules: database.rules,
                            storageRules: storageRules,
                            interval: configuration.rulesReloadInterval
                        )
                    ),
                    .init(service: app),
                    .init(
                        service: RealtimeDrainService(
                            hub: realtime.hub,
                            timeout: configuration.realtime.drainTimeout,
                            logger: logger
                        )
                    ),
                ],
                gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [],
                logger: logger
            )
        )
        return (group, service)
    }
}

extension HearthServer {
    /// Raises the soft open-file limit to the hard limit (each connection holds a descriptor)
    /// and logs both.
    static func raiseOpenFileLimit(logger: Logger) {
        guard let limits = OpenFileLimit.raiseToHard() else {
            logger.warning("cannot read the open-file limit (RLIMIT_NOFILE)")
            return
        }
        logger.info(
            "open-file limit",
            metadata: [
                "hearth.nofile.soft": "\(limits.after)",
                "hearth.nofile.soft_at_start": "\(limits.before)",
                "hearth.nofile.hard": "\(limits.hard)",
            ]
        )
    }
}

/// A server started with `HearthServer.start`.
public final class RunningServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    /// Drains HTTP, closes the store and waits until both have stopped.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
