import ArgumentParser
import Foundation
import HearthChat
import HearthCluster
import HearthCore
import HearthServer

/// What `hearth serve` runs with, after resolving each setting as flag > environment > default.
struct ServeSettings: Equatable, Sendable {
    var host = "127.0.0.1"
    var port = 9000
    var dataDirectory = ".hearth"
    var rulesFile = "rules/database.rules.json"
    var seedFile: String? = "seed/fireside.json"
    var adminSecret: String
    /// True when `adminSecret` was generated for this run (and must be shown once).
    var adminSecretGenerated: Bool
    var jwtSecret: String
    /// True when `jwtSecret` was generated for this run (ID tokens do not survive a restart).
    var jwtSecretGenerated: Bool
    var tlsCertificatePath: String?
    var tlsKeyPath: String?
    /// The Firebase project ID ID tokens must name (any under `emulator`).
    var projectID = "hearth"
    var emulator = false
    var syncMode: SyncMode = .periodic(milliseconds: 100)
    var corsAllowedOrigin = "*"
    var eventLoops = EventLoops.recommended
    /// Seconds a client has to send a whole request head.
    var headerTimeoutSeconds = 30
    /// Seconds an idle keep-alive connection stays open.
    var idleTimeoutSeconds = 75
    /// Seconds an anonymous WebSocket with no listen or onDisconnect may stay silent (0: no limit).
    var webSocketAuthTimeoutSeconds = 60
    /// Seconds any WebSocket may stay silent before it is closed as gone.
    var livenessTimeoutSeconds = 90
    /// Open connections at once; nil: 10,000 or three quarters of the open-file limit.
    var maxConnections: Int?
    /// Open connections one (non-loopback) client address may hold; 0: no limit.
    var maxConnectionsPerAddress = 1_000
    /// HTTP requests one (non-loopback) client address may make a second; 0: no limit.
    var maxRequestRatePerAddress = 1_000
    /// Bytes a second a request body must average after the header timeout; 0: no minimum.
    var minBodyRate = 500
    /// Listens one WebSocket may hold.
    var maxListensPerConnection = 10_000
    var maxBodyBytes = 256 << 20
    var maxBodyMemoryBytes = 512 << 20
    var maxObjectSize = 5 << 30
    /// The namespaces running the chat app's callables (`default` and those of `--chat-ns`).
    var chatNamespaces: Set<String> = ["default"]
    /// Each caller's quota of distinct contacts `matchContacts` looks up.
    var contactQuota = ContactLookupQuota.Limits()
    /// Seconds a call rings before it is missed.
    var callRingTimeout = 45
    /// Where push notifications go; nil: none are queued.
    var push: PushProviderSettings?
    /// `--cluster`, `--advertise`, `--lease-seconds`.
    var cluster: ClusterSettings?

    /// The server's configuration.
    var serverConfiguration: HearthServerConfiguration {
        var configuration = HearthServerConfiguration(
            host: host,
            port: port,
            dataDirectory: dataDirectory,
            rulesFile: rulesFile,
            seedFile: seedFile,
            adminSecret: adminSecret,
            jwtSecret: jwtSecret,
            tlsCertificatePath: tlsCertificatePath,
            tlsKeyPath: tlsKeyPath,
            emulator: emulator,
            syncMode: syncMode,
            corsAllowedOrigin: corsAllowedOrigin,
            maxRequestBodyBytes: maxBodyBytes
        )
        configuration.accounts.projectID = projectID
        configuration.cluster = cluster
        configuration.maxObjectSize = UInt64(maxObjectSize)
        configuration.maxBodyMemoryBytes = maxBodyMemoryBytes
        configuration.connections.headerTimeout = .seconds(headerTimeoutSeconds)
        configuration.connections.idleTimeout = .seconds(idleTimeoutSeconds)
        configuration.connections.maxConnections = maxConnections
        configuration.connections.maxConnectionsPerAddress =
            maxConnectionsPerAddress == 0 ? nil : maxConnectionsPerAddress
        configuration.connections.maxRequestRatePerAddress =
            maxRequestRatePerAddress == 0 ? nil : maxRequestRatePerAddress
        configuration.connections.minBodyBytesPerSecond = minBodyRate == 0 ? nil : minBodyRate
        configuration.realtime.maxListensPerConnection = maxListensPerConnection
        configuration.realtime.authOrListenTimeout =
            webSocketAuthTimeoutSeconds == 0 ? nil : .seconds(webSocketAuthTimeoutSeconds)
        configuration.realtime.livenessTimeout = .seconds(livenessTimeoutSeconds)
        // The chat app in its namespaces: its callables (distinct valid names) and its write
        // triggers (valid patterns), so registering them cannot fail.
        try! ChatApp.register(
            in: &configuration.callables,
            namespaces: chatNamespaces,
            quota: ContactLookupQuota(limits: contactQuota)
        )
        try! ChatApp.register(in: &configuration.triggers, namespaces: chatNamespaces, pushes: push != nil)
        configuration.services += ChatApp.services(
            namespaces: chatNamespaces,
            calls: CallConfiguration(ringTimeout: .seconds(callRingTimeout))
        )
        if let push {
            let service = push.service(namespaces: chatNamespaces, adminSecret: adminSecret)
            configuration.services.append(service)
            configuration.pushStatus = service
        }
        // The chat app's presence (`presence/$uid`), kept from its users' connections.
        configuration.presence.namespaces = chatNamespaces
        return configuration
    }
}

extension ServeSettings {
    /// Resolves every setting from the command's flags, then `environment`, then the defaults;
    /// secrets that are given nowhere come from `generateSecret`.
    /// - Throws: `ValidationError` (exit 64) for a value that is not accepted.
    static func resolve(
        _ flags: ServeCommand,
        environment: Environment,
        generateSecret: () -> String = SecretGenerator.generate
    ) throws -> ServeSettings {
        let admin = environment.string(flags.adminSecret, "HEARTH_ADMIN_SECRET")
        let jwt = environment.string(flags.jwtSecret, "HEARTH_JWT_SECRET")
        var settings = ServeSettings(
            adminSecret: admin ?? generateSecret(),
            adminSecretGenerated: admin == nil,
            jwtSecret: jwt ?? generateSecret(),
            jwtSecretGenerated: jwt == nil
        )
        settings.host = environment.string(flags.host, "HEARTH_HOST") ?? settings.host
        settings.port =
            try environment.integer(flags.port, "HEARTH_PORT", in: 0...65535, option: "--port")
            ?? settings.port
        settings.dataDirectory = environment.string(flags.data, "HEARTH_DATA") ?? settings.dataDirectory
        settings.rulesFile = environment.string(flags.rules, "HEARTH_RULES") ?? settings.rulesFile
        settings.seedFile = environment.string(flags.seed, "HEARTH_SEED") ?? settings.seedFile
        settings.tlsCertificatePath = environment.string(flags.tlsCert, "HEARTH_TLS_CERT")
        settings.tlsKeyPath = environment.string(flags.tlsKey, "HEARTH_TLS_KEY")
        if (settings.tlsCertificatePath == nil) != (settings.tlsKeyPath == nil) {
            throw ValidationError(
                "TLS needs both a certificate and a key: give '--tls-cert' and '--tls-key' "
                    + "(or HEARTH_TLS_CERT and HEARTH_TLS_KEY) together."
            )
        }
        if let projectID = environment.string(flags.projectId, "HEARTH_PROJECT_ID") {
            settings.projectID = try projectIdentifier(
                projectID,
                source: flags.projectId != nil ? "'--project-id'" : "HEARTH_PROJECT_ID"
            )
        }
        settings.emulator = try environment.boolean(flags.emulator, "HEARTH_EMULATOR")
        if let sync = environment.string(flags.sync, "HEARTH_SYNC") {
            settings.syncMode = try syncMode(sync, source: flags.sync != nil ? "'--sync'" : "HEARTH_SYNC")
        }
        settings.eventLoops =
            try environment.integer(flags.eventLoops, "HEARTH_EVENT_LOOPS", in: 1...1024, option: "--event-loops")
            ?? settings.eventLoops
        settings.corsAllowedOrigin =
            environment.string(flags.corsOrigin, "HEARTH_CORS_ORIGIN")
            ?? settings.corsAllowedOrigin
        try resolveLimits(flags, environment: environment, into: &settings)
        if let list = environment.string(flags.chatNs, "HEARTH_CHAT_NS") {
            settings.chatNamespaces = try chatNamespaces(
                list,
                source: flags.chatNs != nil ? "'--chat-ns'" : "HEARTH_CHAT_NS"
            )
        }
        settings.contactQuota.capacity =
            try environment.integer(
                flags.contactQuota,
                "HEARTH_CONTACT_QUOTA",
                in: 1...100_000_000,
                option: "--contact-quota"
            ) ?? settings.contactQuota.capacity
        settings.contactQuota.refillPerHour =
            try environment.integer(
                flags.contactQuotaRefill,
                "HEARTH_CONTACT_QUOTA_REFILL",
                in: 0...100_000_000,
                option: "--contact-quota-refill"
            ) ?? settings.contactQuota.refillPerHour
        settings.callRingTimeout =
            try environment.integer(
                flags.callRingTimeout,
                "HEARTH_CALL_RING_TIMEOUT",
                in: 1...86_400,
                option: "--call-ring-timeout"
            ) ?? settings.callRingTimeout
        settings.push = try PushProviderSettings.resolve(flags, environment: environment)
        settings.cluster = try clusterSettings(flags, environment: environment, host: settings.host)
        return settings
    }

    /// `--cluster` (with `--advertise`, `--lease-seconds` and `--snapshot-entries`), or nil.
    static func clusterSettings(
        _ flags: ServeCommand,
        environment: Environment,
        host: String
    ) throws -> ClusterSettings? {
        let advertise = environment.string(flags.advertise, "HEARTH_ADVERTISE")
        let lease = try environment.integer(
            flags.leaseSeconds,
            "HEARTH_LEASE_SECONDS",
            in: 2...3_600,
            option: "--lease-seconds"
        )
        guard let url = environment.string(flags.cluster, "HEARTH_CLUSTER") else {
            if advertise != nil || lease != nil || flags.snapshotEntries != nil {
                throw ValidationError(
                    "'--advertise', '--lease-seconds' and '--snapshot-entries' need '--cluster' (or HEARTH_CLUSTER)."
                )
            }
            return nil
        }
        let address: ClusterAddress
        do {
            address = try ClusterAddress(parsing: url)
        } catch {
            throw ValidationError("\(flags.cluster != nil ? "'--cluster'" : "HEARTH_CLUSTER"): \(error)")
        }
        let settings = ClusterSettings(
            address: address,
            advertise: advertise,
            leaseSeconds: lease ?? 10,
            snapshotEntries: flags.snapshotEntries ?? 50_000
        )
        if let problem = settings.problem(host: host) { throw ValidationError(problem) }
        return settings
    }

    /// `default` and the comma-separated namespace names of `--chat-ns`.
    static func chatNamespaces(_ list: String, source: String) throws -> Set<String> {
        var names: Set<String> = ["default"]
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces)
            let valid =
                (1...63).contains(name.utf8.count)
                && name.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                        || byte == UInt8(ascii: "-")
                }
            guard valid else {
                throw ValidationError(
                    "Invalid namespace '\(name)' in \(source): use comma-separated names of 1 to 63 letters, digits or '-'."
                )
            }
            names.insert(name)
        }
        return names
    }

    /// A Firebase project ID: 1 to 63 lowercase letters, digits and '-' (`my-chat-app`,
    /// `demo-test`), as the Firebase console makes them.
    static func projectIdentifier(_ text: String, source: String) throws -> String {
        let valid =
            (1...63).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "-")
            }
        guard valid else {
            throw ValidationError(
                "Invalid project ID '\(text)' for \(source): use the Firebase project ID, 1 to 63 lowercase letters, "
                    + "digits or '-' (e.g. my-chat-app)."
            )
        }
        return text
    }

    /// The connection timeouts and the connection and body limits.
    static func resolveLimits(
        _ flags: ServeCommand,
        environment: Environment,
        into settings: inout ServeSettings
    ) throws {
        settings.headerTimeoutSeconds =
            try environment.integer(
                flags.headerTimeout,
                "HEARTH_HEADER_TIMEOUT",
                in: 1...3600,
                option: "--header-timeout"
            ) ?? settings.headerTimeoutSeconds
        settings.idleTimeoutSeconds =
            try environment.integer(flags.idleTimeout, "HEARTH_IDLE_TIMEOUT", in: 1...86_400, option: "--idle-timeout")
            ?? settings.idleTimeoutSeconds
        settings.webSocketAuthTimeoutSeconds =
            try environment.integer(
                flags.websocketAuthTimeout,
                "HEARTH_WEBSOCKET_AUTH_TIMEOUT",
                in: 0...86_400,
                option: "--websocket-auth-timeout"
            ) ?? settings.webSocketAuthTimeoutSeconds
        settings.livenessTimeoutSeconds =
            try environment.integer(
                flags.livenessTimeout,
                "HEARTH_LIVENESS_TIMEOUT",
                in: 2...86_400,
                option: "--liveness-timeout"
            ) ?? settings.livenessTimeoutSeconds
        settings.maxConnections = try environment.integer(
            flags.maxConnections,
            "HEARTH_MAX_CONNECTIONS",
            in: 1...10_000_000,
            option: "--max-connections"
        )
        settings.maxConnectionsPerAddress =
            try environment.integer(
                flags.maxConnectionsPerAddress,
                "HEARTH_MAX_CONNECTIONS_PER_ADDRESS",
                in: 0...10_000_000,
                option: "--max-connections-per-address"
            ) ?? settings.maxConnectionsPerAddress
        settings.maxRequestRatePerAddress =
            try environment.integer(
                flags.maxRequestRatePerAddress,
                "HEARTH_MAX_REQUEST_RATE_PER_ADDRESS",
                in: 0...10_000_000,
                option: "--max-request-rate-per-address"
            ) ?? settings.maxRequestRatePerAddress
        settings.minBodyRate =
            try environment.integer(
                flags.minBodyRate,
                "HEARTH_MIN_BODY_RATE",
                in: 0...(1 << 30),
                option: "--min-body-rate"
            )
            ?? settings.minBodyRate
        settings.maxListensPerConnection =
            try environment.integer(
                flags.maxListensPerConnection,
                "HEARTH_MAX_LISTENS_PER_CONNECTION",
                in: 1...10_000_000,
                option: "--max-listens-per-connection"
            ) ?? settings.maxListensPerConnection
        settings.maxBodyBytes =
            try environment.integer(
                flags.maxBodyBytes,
                "HEARTH_MAX_BODY_BYTES",
                in: 1...(1 << 40),
                option: "--max-body-bytes"
            )
            ?? settings.maxBodyBytes
        settings.maxBodyMemoryBytes =
            try environment.integer(
                flags.maxBodyMemory,
                "HEARTH_MAX_BODY_MEMORY",
                in: 1...(1 << 44),
                option: "--max-body-memory"
            ) ?? max(settings.maxBodyMemoryBytes, settings.maxBodyBytes)
        settings.maxObjectSize =
            try environment.integer(
                flags.maxObjectSize,
                "HEARTH_MAX_OBJECT_SIZE",
                in: 1...(1 << 44),
                option: "--max-object-size"
            ) ?? settings.maxObjectSize
        if settings.maxBodyMemoryBytes < settings.maxBodyBytes {
            throw ValidationError(
                "Invalid value '\(settings.maxBodyMemoryBytes)' for the body memory limit: it must be at least "
                    + "the largest body ('--max-body-bytes', \(settings.maxBodyBytes))."
            )
        }
    }

    /// `periodic` or `always`.
    static func syncMode(_ text: String, source: String) throws -> SyncMode {
        switch text.lowercased() {
        case "periodic": return .periodic(milliseconds: 100)
        case "always": return .always
        default:
            throw ValidationError("Invalid value '\(text)' for \(source): expected 'periodic' or 'always'.")
        }
    }
}
