import ArgumentParser
import Foundation
import HearthAccounts
import HearthCore
import HearthServer
import Logging

/// `hearth serve`: runs the server until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the database over REST, SSE and WebSocket (the default command).",
        discussion: """
            Defaults: 127.0.0.1:9000, data in ./.hearth, rules from rules/database.rules.json, and on an \
            empty database the seed seed/fireside.json. Without an admin secret a random one is generated \
            and printed once.
            """
    )

    @Option(help: "Address to bind (env HEARTH_HOST; default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to bind, 0 for any free port (env HEARTH_PORT; default 9000).")
    var port: Int?

    @Option(help: "Data directory (env HEARTH_DATA; default .hearth).")
    var data: String?

    @Option(help: "Rules file of the default namespace (env HEARTH_RULES; default rules/database.rules.json).")
    var rules: String?

    @Option(help: "JSON imported into an empty database (env HEARTH_SEED; default seed/fireside.json).")
    var seed: String?

    @Option(help: "Admin credential; generated and printed once when not given (env HEARTH_ADMIN_SECRET).")
    var adminSecret: String?

    @Option(help: "HS256 key of ID tokens; default: generated once into <data>/jwt-secret (env HEARTH_JWT_SECRET).")
    var jwtSecret: String?

    @Option(help: "PEM certificate chain for HTTPS and wss:// (env HEARTH_TLS_CERT).")
    var tlsCert: String?

    @Option(help: "PEM private key for HTTPS and wss:// (env HEARTH_TLS_KEY).")
    var tlsKey: String?

    @Option(
        help: ArgumentHelp(
            "The Firebase project ID: ID tokens must name it in aud/iss (any project under --emulator) "
                + "(env HEARTH_PROJECT_ID; default hearth)."
        )
    )
    var projectId: String?

    @Flag(
        help: ArgumentHelp(
            "Firebase-emulator conventions: bearer 'owner' is admin, unsigned ID tokens (the SDKs' mockUserToken) "
                + "and ID tokens of any project (env HEARTH_EMULATOR)."
        )
    )
    var emulator = false

    @Option(help: "When writes are fsynced: periodic (every 100 ms) or always (before each ack) (env HEARTH_SYNC).")
    var sync: String?

    @Option(help: "Access-Control-Allow-Origin for browsers (env HEARTH_CORS_ORIGIN; default *).")
    var corsOrigin: String?

    @Option(
        help:
            "Event-loop threads for connections (env HEARTH_EVENT_LOOPS; default: one per core)."
    )
    var eventLoops: Int?

    @Option(help: "Seconds a client has to send a whole request head (env HEARTH_HEADER_TIMEOUT; default 30).")
    var headerTimeout: Int?

    @Option(help: "Seconds an idle keep-alive connection stays open (env HEARTH_IDLE_TIMEOUT; default 75).")
    var idleTimeout: Int?

    @Option(
        help: ArgumentHelp(
            "Seconds an anonymous WebSocket with no listen or onDisconnect may stay silent, 0 for no limit "
                + "(env HEARTH_WEBSOCKET_AUTH_TIMEOUT; default 60)."
        )
    )
    var websocketAuthTimeout: Int?

    @Option(
        help: ArgumentHelp(
            "Seconds a WebSocket may stay silent (the SDKs send a keep-alive every 45) before it is closed and its "
                + "onDisconnect operations run; a ping goes out halfway (env HEARTH_LIVENESS_TIMEOUT; default 90)."
        )
    )
    var livenessTimeout: Int?

    @Option(
        help: ArgumentHelp(
            "Open connections at once; more are answered 503 (env HEARTH_MAX_CONNECTIONS; "
                + "default 10000, or 3/4 of the open-file limit when lower)."
        )
    )
    var maxConnections: Int?

    @Option(
        help: ArgumentHelp(
            "Open connections one client address may hold, 0 for no limit; more are answered 429. Loopback "
                + "peers are not limited (env HEARTH_MAX_CONNECTIONS_PER_ADDRESS; default 1000)."
        )
    )
    var maxConnectionsPerAddress: Int?

    @Option(
        help: ArgumentHelp(
            "HTTP requests one client address may make a second (bursts of twice that), 0 for no limit; more are "
                + "answered 429. Loopback peers are not limited (env HEARTH_MAX_REQUEST_RATE_PER_ADDRESS; default 1000)."
        )
    )
    var maxRequestRatePerAddress: Int?

    @Option(
        help: ArgumentHelp(
            "Bytes a second a request body must average, after a grace of the header timeout, 0 for no minimum; "
                + "a slower body is closed (env HEARTH_MIN_BODY_RATE; default 500)."
        )
    )
    var minBodyRate: Int?

    @Option(
        help: ArgumentHelp(
            "Listens one WebSocket may hold; one more is answered 'failure' "
                + "(env HEARTH_MAX_LISTENS_PER_CONNECTION; default 10000)."
        )
    )
    var maxListensPerConnection: Int?

    @Option(help: "Largest request body in bytes; larger is 413 (env HEARTH_MAX_BODY_BYTES; default 268435456).")
    var maxBodyBytes: Int?

    @Option(
        help: "Largest file (Storage object) in bytes; larger is 413 (env HEARTH_MAX_OBJECT_SIZE; default 5368709120)."
    )
    var maxObjectSize: Int?

    @Option(
        help: ArgumentHelp(
            "Bytes all request bodies being read may hold together; past it, 503 (env HEARTH_MAX_BODY_MEMORY; "
                + "default 536870912)."
        )
    )
    var maxBodyMemory: Int?

    @Option(
        help: ArgumentHelp(
            "Namespaces that also run the chat app's callables, comma-separated; 'default' always does "
                + "(env HEARTH_CHAT_NS)."
        )
    )
    var chatNs: String?

    @Option(
        help: ArgumentHelp(
            "Distinct phone numbers and e-mails each caller of matchContacts may look up at once; numbers "
                + "asked before are free (env HEARTH_CONTACT_QUOTA, default 10000)."
        )
    )
    var contactQuota: Int?

    @Option(
        help: ArgumentHelp(
            "Lookups added back to each caller's matchContacts quota per hour (env HEARTH_CONTACT_QUOTA_REFILL, "
                + "default 1000)."
        )
    )
    var contactQuotaRefill: Int?

    @Option(
        help: ArgumentHelp(
            "Seconds a call rings before the server marks it missed (env HEARTH_CALL_RING_TIMEOUT, default 45, "
                + "the contract's)."
        )
    )
    var callRingTimeout: Int?

    @Option(
        help: ArgumentHelp(
            "Push notifications: POST each push to this http(s) URL, signed with the admin secret "
                + "(env HEARTH_PUSH_WEBHOOK)."
        )
    )
    var pushWebhook: String?

    @Option(
        help: ArgumentHelp(
            "Push notifications through FCM HTTP v1 with this Google service-account JSON file "
                + "(env HEARTH_PUSH_FCM)."
        )
    )
    var pushFcm: String?

    @Option(
        help: ArgumentHelp(
            "The FCM endpoint pushes go to, replacing https://fcm.googleapis.com (env HEARTH_PUSH_FCM_ENDPOINT)."
        )
    )
    var pushFcmEndpoint: String?

    @Option(
        help: ArgumentHelp(
            "Join the cluster whose state lives in this PostgreSQL database, "
                + "postgresql://USER@HOST:PORT/DB (env HEARTH_CLUSTER; docs/cluster.md)."
        )
    )
    var cluster: String?

    @Option(
        help: ArgumentHelp(
            "In a cluster: the URL other nodes reach this node at (env HEARTH_ADVERTISE; "
                + "default http://HOST:PORT of the node)."
        )
    )
    var advertise: String?

    @Option(
        help: ArgumentHelp(
            "In a cluster: seconds a namespace's lease lasts; a dead node's namespaces are served "
                + "elsewhere within it (env HEARTH_LEASE_SECONDS; default 10)."
        )
    )
    var leaseSeconds: Int?

    @Option(
        help: ArgumentHelp(
            "In a cluster: changelog entries a namespace gathers before its owner snapshots it "
                + "into PostgreSQL and drops the changelog up to there (default 50000)."
        )
    )
    var snapshotEntries: Int?

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let environment = Environment(ProcessInfo.processInfo.environment)
        var settings = try ServeSettings.resolve(self, environment: environment)
        let logger = LoggingOptions.bootstrap(level: try logging.resolve(environment))
        if settings.adminSecretGenerated {
            // stdout, not the log: shown once, and never written to the log stream.
            let line = "Admin secret (generated, shown once): \(settings.adminSecret)\n"
            try OutputSink(path: nil).write(Array(line.utf8))
        }
        if settings.jwtSecretGenerated {
            settings.jwtSecret = try Self.storedJWTSecret(settings.dataDirectory, logger: logger)
        }
        if DataDirectory.isLockedByAnotherProcess(settings.dataDirectory) {
            throw Self.dataDirectoryInUse(settings.dataDirectory)
        }
        EventLoops.use(settings.eventLoops)
        do {
            try await HearthServer.run(configuration: settings.serverConfiguration, logger: logger)
        } catch {
            throw Self.explain(error, settings: settings)
        }
    }

    /// The JWT secret kept in the data directory (created once, mode 0600), so that ID tokens
    /// survive restarts when no `--jwt-secret` is given.
    static func storedJWTSecret(_ directory: String, logger: Logger) throws -> String {
        do {
            let stored = try JWTSecretFile.loadOrCreate(in: directory)
            let file = "\(directory)/\(JWTSecretFile.fileName)"
            let message = stored.created ? "generated one in '\(file)'" : "using '\(file)'"
            logger.notice("No JWT secret given: \(message)")
            return stored.secret
        } catch {
            throw CLIError(.file, "Cannot keep the JWT secret in '\(directory)': \(error.detail ?? error.message)")
        }
    }

    /// A sentence for the failures users meet: a taken port, a data directory in use, a store that
    /// is damaged or on a disk that refuses writes.
    static func explain(_ error: any Error, settings: ServeSettings) -> CLIError {
        switch error {
        case let error as HearthServerError where error.code == .addressInUse:
            return CLIError(
                .serve,
                "Cannot listen on \(settings.host):\(settings.port): the address is already in use "
                    + "(is another server running?); choose another '--port'.",
                cause: error
            )
        case let error as HearthServerError where error.code == .dataDirectoryInUse:
            return dataDirectoryInUse(settings.dataDirectory)
        case let error as StoreError where error.code == .locked:
            return dataDirectoryInUse(settings.dataDirectory)
        case let error as StoreError where error.code == .damaged || error.code == .storageFailure:
            // Its message says what is wrong with the disk or the files, and what to do.
            return CLIError(.serve, "Hearth did not start: \(error.message)", cause: error)
        default:
            return CLIError(.serve, "The server stopped: \(error)", cause: error)
        }
    }

    static func dataDirectoryInUse(_ directory: String) -> CLIError {
        CLIError(
            .dataDirectoryInUse,
            "The data directory '\(directory)' is in use by another Hearth server; "
                + "stop it, or choose another '--data'."
        )
    }
}
