public import Foundation
public import HearthServer
public import Logging

extension HearthServerConfiguration {
    /// A test server's configuration over `directory`: loopback, a free port, the data under
    /// `data/`, the rules at `rules/database.rules.json`, no seed, the test secrets.
    public static func testing(in directory: URL) -> HearthServerConfiguration {
        HearthServerConfiguration(
            host: "127.0.0.1",
            port: 0,
            dataDirectory: directory.appendingPathComponent("data").path,
            rulesFile: directory.appendingPathComponent("rules/database.rules.json").path,
            seedFile: nil,
            adminSecret: TestServer.adminSecret,
            jwtSecret: TestServer.jwtSecret
        )
    }
}

extension TestServer {
    /// What test servers log: nothing below critical, everything from debug up when the
    /// environment has `HEARTH_TEST_LOG`.
    public static var logger: Logger {
        var logger = Logger(label: "hearth.test")
        logger.logLevel = ProcessInfo.processInfo.environment["HEARTH_TEST_LOG"] == nil ? .critical : .debug
        return logger
    }

    /// Starts a server with `configuration` over `directory`, for a test that stops it itself
    /// (`running.shutdown()`) and may start another over the same data: a restart.
    public static func start(
        _ configuration: HearthServerConfiguration,
        in directory: URL
    ) async throws -> (running: RunningServer, server: TestServer) {
        let running = try await HearthServer.start(configuration: configuration, logger: logger)
        return (running, TestServer(port: running.port, directory: directory))
    }
}
