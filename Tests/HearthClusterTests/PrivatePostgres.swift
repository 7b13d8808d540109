import Foundation
import HearthCluster
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// A PostgreSQL server of the test process's own: `initdb` in a temporary directory, listening on
/// a free loopback port only, trust authentication, stopped when the process exits. Each test
/// takes a database of its own (`database()`). Run as the `postgres` user when the tests run as
/// root (PostgreSQL refuses root).
///
/// Needs PostgreSQL's server programs (Debian: `apt-get install postgresql`); `.ci/run`
/// installs them. Without them `PrivatePostgres.shared` throws, saying so.
final class PrivatePostgres: Sendable {
    let port: Int
    let directory: String
    private let binaries: String
    private let runAs: [String]
    private let databases = Atomic<Int>(0)

    static let shared: Result<PrivatePostgres, any Error> = Result { try PrivatePostgres() }

    private init() throws {
        guard let binaries = PrivatePostgres.findBinaries() else {
            throw TestSetupError(
                "PostgreSQL's server programs (initdb, pg_ctl) are not installed: apt-get install postgresql"
            )
        }
        self.binaries = binaries
        let root = getuid() == 0
        runAs = root ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
        directory = NSTemporaryDirectory() + "hearth-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if root { try PrivatePostgres.run(["/bin/chown", "postgres:postgres", directory], runAs: []) }
        port = try PrivatePostgres.freePort()
        try PrivatePostgres.run(
            [
                binaries + "/initdb", "-D", directory + "/data", "-U", "hearth", "--auth=trust", "-E", "UTF8",
                "--no-sync",
            ],
            runAs: runAs
        )
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=200"
        try PrivatePostgres.run(
            [binaries + "/pg_ctl", "-D", directory + "/data", "-o", options, "-l", directory + "/log", "-w", "start"],
            runAs: runAs
        )
        PrivatePostgres.stopAtExit.withLock { $0 = (binaries + "/pg_ctl", directory, runAs) }
        atexit {
            guard let (pgCtl, directory, runAs) = PrivatePostgres.stopAtExit.withLock({ $0 }) else { return }
            try? PrivatePostgres.run([pgCtl, "-D", directory + "/data", "-m", "immediate", "stop"], runAs: runAs)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    private static let stopAtExit = Mutex<(String, String, [String])?>(nil)

    /// A new, empty database of this server, as `--cluster` names it.
    func database() async throws -> ClusterAddress {
        let name = "hearth_\(databases.add(1, ordering: .relaxed).newValue)"
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: "127.0.0.1",
                port: port,
                username: "hearth",
                password: nil,
                database: "postgres",
                tls: .disable
            ),
            id: 0,
            logger: Logger(label: "test")
        )
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "test"))
        try await connection.close()
        return ClusterAddress(host: "127.0.0.1", port: port, user: "hearth", database: name)
    }

    private static func findBinaries() -> String? {
        let fileManager = FileManager.default
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = String(directory)
            if fileManager.isExecutableFile(atPath: path + "/initdb"),
                fileManager.isExecutableFile(atPath: path + "/pg_ctl")
            {
                return path
            }
        }
        let versions = (try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let path = "/usr/lib/postgresql/\(version)/bin"
            if fileManager.isExecutableFile(atPath: path + "/initdb") { return path }
        }
        return nil
    }

    private static func freePort() throws -> Int {
        let socket = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).wait()
        let port = socket.localAddress?.port ?? 0
        try socket.close().wait()
        return port
    }

    /// Runs a setup command and waits for it (`posix_spawn`, `waitpid`). Its output goes to a
    /// file, not a pipe: `pg_ctl start` leaves the server running with what it inherited.
    private static func run(_ arguments: [String], runAs: [String]) throws {
        let command = runAs + arguments
        let outputPath = NSTemporaryDirectory() + "hearth-pg-setup-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw TestSetupError("cannot start \(command[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw TestSetupError("\(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
    }
}

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
