import HearthAccounts
import HearthFunctions
import HearthStore
import Logging
import NIOCore
import Testing

@testable import HearthCLI

/// Resolution of `serve` settings: flag > environment > default.
struct ServeSettingsTests {
    static func resolve(_ arguments: [String], _ environment: [String: String] = [:]) throws -> ServeSettings {
        let command = try ServeCommand.parse(arguments)
        return try ServeSettings.resolve(command, environment: Environment(environment)) { "generated" }
    }

    @Test func defaultsMatchTheContract() throws {
        let settings = try Self.resolve([])
        #expect(settings.host == "127.0.0.1")
        #expect(settings.port == 9000)
        #expect(settings.dataDirectory == ".hearth")
        #expect(settings.rulesFile == "rules/database.rules.json")
        #expect(settings.seedFile == "seed/fireside.json")
        #expect(settings.adminSecret == "generated")
        #expect(settings.adminSecretGenerated)
        #expect(settings.jwtSecretGenerated)
        #expect(settings.tlsCertificatePath == nil)
        #expect(settings.emulator == false)
        #expect(settings.syncMode == .periodic(milliseconds: 100))
        #expect(settings.corsAllowedOrigin == "*")
        #expect(settings.eventLoops == System.coreCount, "one loop per core: the loops run cheap writes' rounds")
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var id: String
        var arguments: [String] = []
        var environment: [String: String] = [:]
        var check: @Sendable (ServeSettings) -> Bool
        var testDescription: String { id }
    }

    /// The chat app's triggers, in registration order: messages, then contacts (a contact added
    /// accepts a conversation request).
    static let chatTriggers = ["/messages/$chatId/$messageId", "/contacts/$uid/$contactUid"]

    static let cases: [Case] = [
        .init(id: "host flag", arguments: ["--host", "0.0.0.0"]) { $0.host == "0.0.0.0" },
        .init(id: "host env", environment: ["HEARTH_HOST": "::1"]) { $0.host == "::1" },
        .init(id: "host flag beats env", arguments: ["--host", "a"], environment: ["HEARTH_HOST": "b"]) {
            $0.host == "a"
        },
        .init(id: "port env", environment: ["HEARTH_PORT": "8080"]) { $0.port == 8080 },
        .init(id: "event loops flag", arguments: ["--event-loops", "3"]) { $0.eventLoops == 3 },
        .init(id: "event loops env", environment: ["HEARTH_EVENT_LOOPS": "2"]) { $0.eventLoops == 2 },
        .init(id: "port flag beats env", arguments: ["--port", "1"], environment: ["HEARTH_PORT": "2"]) {
            $0.port == 1
        },
        .init(id: "empty env is unset", environment: ["HEARTH_PORT": "", "HEARTH_HOST": ""]) {
            $0.port == 9000 && $0.host == "127.0.0.1"
        },
        .init(id: "data", environment: ["HEARTH_DATA": "/var/hearth"]) { $0.dataDirectory == "/var/hearth" },
        .init(id: "rules", arguments: ["--rules", "r.json"]) { $0.rulesFile == "r.json" },
        .init(id: "seed env", environment: ["HEARTH_SEED": "s.json"]) { $0.seedFile == "s.json" },
        .init(id: "admin env", environment: ["HEARTH_ADMIN_SECRET": "s3"]) {
            $0.adminSecret == "s3" && !$0.adminSecretGenerated
        },
        .init(
            id: "admin flag beats env",
            arguments: ["--admin-secret", "f"],
            environment: ["HEARTH_ADMIN_SECRET": "e"]
        ) { $0.adminSecret == "f" },
        .init(id: "jwt env", environment: ["HEARTH_JWT_SECRET": "k"]) { $0.jwtSecret == "k" && !$0.jwtSecretGenerated },
        .init(id: "tls", environment: ["HEARTH_TLS_CERT": "c.pem", "HEARTH_TLS_KEY": "k.pem"]) {
            $0.tlsCertificatePath == "c.pem" && $0.tlsKeyPath == "k.pem"
        },
        .init(id: "tls mixed", arguments: ["--tls-cert", "c"], environment: ["HEARTH_TLS_KEY": "k"]) {
            $0.tlsCertificatePath == "c" && $0.tlsKeyPath == "k"
        },
        .init(id: "project default") {
            $0.projectID == "hearth" && $0.serverConfiguration.accounts.projectID == "hearth"
        },
        .init(id: "project flag", arguments: ["--project-id", "my-chat-app"]) {
            $0.serverConfiguration.accounts.projectID == "my-chat-app"
        },
        .init(
            id: "project flag beats env",
            arguments: ["--project-id", "flag-app"],
            environment: ["HEARTH_PROJECT_ID": "env-app"]
        ) { $0.projectID == "flag-app" },
        .init(id: "project env", environment: ["HEARTH_PROJECT_ID": "demo-test"]) { $0.projectID == "demo-test" },
        .init(id: "liveness default") {
            $0.livenessTimeoutSeconds == 90 && $0.serverConfiguration.realtime.livenessTimeout == .seconds(90)
        },
        .init(id: "liveness flag", arguments: ["--liveness-timeout", "30"]) {
            $0.serverConfiguration.realtime.livenessTimeout == .seconds(30)
        },
        .init(id: "liveness env", environment: ["HEARTH_LIVENESS_TIMEOUT": "120"]) {
            $0.serverConfiguration.realtime.livenessTimeout == .seconds(120)
        },
        .init(id: "emulator flag", arguments: ["--emulator"]) { $0.emulator },
        .init(id: "emulator env", environment: ["HEARTH_EMULATOR": "true"]) { $0.emulator },
        .init(id: "emulator env off", environment: ["HEARTH_EMULATOR": "0"]) { !$0.emulator },
        .init(id: "sync flag", arguments: ["--sync", "always"]) { $0.syncMode == .always },
        .init(id: "sync env", environment: ["HEARTH_SYNC": "always"]) { $0.syncMode == .always },
        .init(id: "sync flag beats env", arguments: ["--sync", "periodic"], environment: ["HEARTH_SYNC": "always"]) {
            $0.syncMode == .periodic(milliseconds: 100)
        },
        .init(id: "cors", environment: ["HEARTH_CORS_ORIGIN": "https://app.example"]) {
            $0.corsAllowedOrigin == "https://app.example"
        },
        .init(id: "connection limits default") {
            $0.headerTimeoutSeconds == 30 && $0.idleTimeoutSeconds == 75 && $0.webSocketAuthTimeoutSeconds == 60
                && $0.maxConnections == nil && $0.maxBodyBytes == 256 << 20 && $0.maxBodyMemoryBytes == 512 << 20
        },
        .init(id: "header timeout flag", arguments: ["--header-timeout", "5"]) { $0.headerTimeoutSeconds == 5 },
        .init(id: "idle timeout env", environment: ["HEARTH_IDLE_TIMEOUT": "9"]) { $0.idleTimeoutSeconds == 9 },
        .init(id: "websocket auth timeout off", environment: ["HEARTH_WEBSOCKET_AUTH_TIMEOUT": "0"]) {
            $0.webSocketAuthTimeoutSeconds == 0 && $0.serverConfiguration.realtime.authOrListenTimeout == nil
        },
        .init(
            id: "max connections",
            arguments: ["--max-connections", "50"],
            environment: ["HEARTH_MAX_CONNECTIONS": "7"]
        ) {
            $0.maxConnections == 50
        },
        .init(id: "per-address limits default") {
            $0.serverConfiguration.connections.maxConnectionsPerAddress == 1_000
                && $0.serverConfiguration.connections.maxRequestRatePerAddress == 1_000
        },
        .init(
            id: "per-address limits off",
            arguments: ["--max-connections-per-address", "0"],
            environment: ["HEARTH_MAX_REQUEST_RATE_PER_ADDRESS": "0"]
        ) {
            $0.serverConfiguration.connections.maxConnectionsPerAddress == nil
                && $0.serverConfiguration.connections.maxRequestRatePerAddress == nil
        },
        .init(id: "per-address request rate flag", arguments: ["--max-request-rate-per-address", "25"]) {
            $0.serverConfiguration.connections.maxRequestRatePerAddress == 25
        },
        .init(id: "body rate and listens default") {
            $0.serverConfiguration.connections.minBodyBytesPerSecond == 500
                && $0.serverConfiguration.realtime.maxListensPerConnection == 10_000
        },
        .init(
            id: "body rate off and fewer listens",
            arguments: ["--min-body-rate", "0"],
            environment: ["HEARTH_MAX_LISTENS_PER_CONNECTION": "50"]
        ) {
            $0.serverConfiguration.connections.minBodyBytesPerSecond == nil
                && $0.serverConfiguration.realtime.maxListensPerConnection == 50
        },
        .init(id: "max body bytes raise the memory default", environment: ["HEARTH_MAX_BODY_BYTES": "1073741824"]) {
            $0.maxBodyBytes == 1 << 30 && $0.maxBodyMemoryBytes == 1 << 30
        },
        .init(id: "max body memory", arguments: ["--max-body-memory", "1000000000"]) {
            $0.maxBodyMemoryBytes == 1_000_000_000
        },
        .init(id: "chat runs in default alone") {
            $0.chatNamespaces == ["default"]
                && $0.serverConfiguration.callables.callable(named: "createChat", in: "default") != nil
                && $0.serverConfiguration.callables.callable(named: "createChat", in: "other") == nil
                && $0.serverConfiguration.triggers.patterns(of: "default") == ServeSettingsTests.chatTriggers
                && $0.serverConfiguration.triggers.patterns(of: "other").isEmpty
        },
        .init(
            id: "chat namespaces flag beats env",
            arguments: ["--chat-ns", "a, b"],
            environment: ["HEARTH_CHAT_NS": "c"]
        ) {
            $0.chatNamespaces == ["default", "a", "b"]
                && $0.serverConfiguration.callables.callable(named: "createGroup", in: "b") != nil
                && $0.serverConfiguration.triggers.patterns(of: "b") == ServeSettingsTests.chatTriggers
                && $0.serverConfiguration.triggers.patterns(of: "c").isEmpty
        },
        .init(id: "chat namespaces env", environment: ["HEARTH_CHAT_NS": "c"]) {
            $0.chatNamespaces == ["default", "c"]
        },
        .init(id: "presence is kept in the chat namespaces", arguments: ["--chat-ns", "a"]) {
            $0.serverConfiguration.presence.namespaces == ["default", "a"]
        },
        .init(id: "contact quota defaults") {
            $0.contactQuota == .init(capacity: 10_000, refillPerHour: 1_000)
                && $0.serverConfiguration.callables.callable(named: "matchContacts", in: "default") != nil
        },
        .init(
            id: "contact quota flag beats env",
            arguments: ["--contact-quota", "50"],
            environment: ["HEARTH_CONTACT_QUOTA": "7", "HEARTH_CONTACT_QUOTA_REFILL": "0"]
        ) {
            $0.contactQuota == .init(capacity: 50, refillPerHour: 0)
        },
        .init(id: "calls ring 45 s by default, with the missed-call timer") {
            $0.callRingTimeout == 45 && $0.serverConfiguration.services.map(\.name) == ["chat.calls.missed"]
        },
        .init(
            id: "call ring timeout flag beats env",
            arguments: ["--call-ring-timeout", "30"],
            environment: ["HEARTH_CALL_RING_TIMEOUT": "7"]
        ) {
            $0.callRingTimeout == 30
        },
        .init(id: "call ring timeout from env", environment: ["HEARTH_CALL_RING_TIMEOUT": "7"]) {
            $0.callRingTimeout == 7
        },
    ]

    @Test(arguments: cases)
    func resolvesFlagThenEnvironmentThenDefault(_ testCase: Case) throws {
        let settings = try Self.resolve(testCase.arguments, testCase.environment)
        #expect(testCase.check(settings))
    }

    static let invalid: [(arguments: [String], environment: [String: String], message: String)] = [
        (["--port", "65536"], [:], "Invalid value '65536' for '--port': expected 0...65535."),
        (["--event-loops", "0"], [:], "Invalid value '0' for '--event-loops': expected 1...1024."),
        ([], ["HEARTH_PORT": "nine"], "Invalid value 'nine' for HEARTH_PORT: expected an integer 0...65535."),
        (["--sync", "never"], [:], "Invalid value 'never' for '--sync': expected 'periodic' or 'always'."),
        ([], ["HEARTH_SYNC": "x"], "Invalid value 'x' for HEARTH_SYNC: expected 'periodic' or 'always'."),
        ([], ["HEARTH_EMULATOR": "maybe"], "Invalid value 'maybe' for HEARTH_EMULATOR: expected 'true' or 'false'."),
        (["--header-timeout", "0"], [:], "Invalid value '0' for '--header-timeout': expected 1...3600."),
        (["--liveness-timeout", "1"], [:], "Invalid value '1' for '--liveness-timeout': expected 2...86400."),
        (
            ["--project-id", "My App"], [:],
            "Invalid project ID 'My App' for '--project-id': use the Firebase project ID, 1 to 63 lowercase letters, "
                + "digits or '-' (e.g. my-chat-app)."
        ),
        (
            [], ["HEARTH_PROJECT_ID": "a/b"],
            "Invalid project ID 'a/b' for HEARTH_PROJECT_ID: use the Firebase project ID, 1 to 63 lowercase letters, "
                + "digits or '-' (e.g. my-chat-app)."
        ),
        (
            ["--contact-quota", "0"], [:],
            "Invalid value '0' for '--contact-quota': expected 1...100000000."
        ),
        (
            ["--call-ring-timeout", "0"], [:],
            "Invalid value '0' for '--call-ring-timeout': expected 1...86400."
        ),
        (
            ["--max-body-bytes", "2000", "--max-body-memory", "1000"], [:],
            "Invalid value '1000' for the body memory limit: it must be at least the largest body "
                + "('--max-body-bytes', 2000)."
        ),
        (
            ["--chat-ns", "a,b.c"], [:],
            "Invalid namespace 'b.c' in '--chat-ns': use comma-separated names of 1 to 63 letters, digits or '-'."
        ),
        (
            ["--tls-key", "k"], [:],
            "TLS needs both a certificate and a key: give '--tls-cert' and '--tls-key' "
                + "(or HEARTH_TLS_CERT and HEARTH_TLS_KEY) together."
        ),
    ]

    @Test(arguments: 0..<invalid.count)
    func refusesInvalidValuesWithExactMessages(_ index: Int) throws {
        let (arguments, environment, message) = Self.invalid[index]
        let error = #expect(throws: (any Error).self) { try Self.resolve(arguments, environment) }
        #expect(error.map { "\($0)" } == message)
    }

    @Test func serverConfigurationCarriesEverySetting() throws {
        let settings = try Self.resolve(
            [
                "--host", "h", "--port", "1", "--data", "d", "--rules", "r", "--seed", "s", "--admin-secret", "a",
                "--jwt-secret", "j", "--tls-cert", "c", "--tls-key", "k", "--emulator", "--sync", "always",
                "--cors-origin", "o", "--header-timeout", "3", "--idle-timeout", "4", "--websocket-auth-timeout", "5",
                "--max-connections", "6", "--max-body-bytes", "7000", "--max-body-memory", "8000",
            ]
        )
        let configuration = settings.serverConfiguration
        #expect(configuration.host == "h")
        #expect(configuration.port == 1)
        #expect(configuration.dataDirectory == "d")
        #expect(configuration.rulesFile == "r")
        #expect(configuration.seedFile == "s")
        #expect(configuration.adminSecret == "a")
        #expect(configuration.jwtSecret == "j")
        #expect(configuration.tlsCertificatePath == "c")
        #expect(configuration.tlsKeyPath == "k")
        #expect(configuration.emulator)
        #expect(configuration.syncMode == .always)
        #expect(configuration.corsAllowedOrigin == "o")
        #expect(configuration.connections.headerTimeout == .seconds(3))
        #expect(configuration.connections.idleTimeout == .seconds(4))
        #expect(configuration.realtime.authOrListenTimeout == .seconds(5))
        #expect(configuration.connections.maxConnections == 6)
        #expect(configuration.maxRequestBodyBytes == 7000)
        #expect(configuration.maxBodyMemoryBytes == 8000)
    }

    @Test func generatedSecretsAre32RandomBytesInBase64URL() {
        let a = SecretGenerator.generate()
        let b = SecretGenerator.generate()
        #expect(a != b)
        #expect(a.count == 43)
        #expect(a.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    @Test func logLevelResolves() throws {
        #expect(try LoggingOptions.parse([]).resolve(Environment([:])) == .info)
        #expect(try LoggingOptions.parse([]).resolve(Environment(["HEARTH_LOG_LEVEL": "debug"])) == .debug)
        #expect(
            try LoggingOptions.parse(["--log-level", "error"]).resolve(Environment(["HEARTH_LOG_LEVEL": "debug"]))
                == .error
        )
    }
}
