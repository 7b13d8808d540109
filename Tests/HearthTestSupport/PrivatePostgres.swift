import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of the test process's own: `initdb` in a temporary directory, listening on
/// a free loopback port only (and on the addresses a test names), trust authentication, stopped
/// when the process exits. Each test takes a database of its own (`database()`). Run as the `postgres` user when the tests run as
/// root (PostgreSQL refuses root).
///
/// Needs PostgreSQL's server programs (Debian: `apt-get install postgresql`); `.ci/run`
/// installs them. Without them `PrivatePostgres.shared` throws, saying so.
public final class PrivatePostgres: Sendable {
    public let port: Int
    public let directory: String
    private let binaries: String
    private let runAs: [String]
    private let options: String
    private let databases = Atomic<Int>(0)

    public static let shared: Result<PrivatePostgres, any Error> = Result { try PrivatePostgres() }

    /// A server listening on 127.0.0.1 and on `extraAddresses`, trusting connections from
    /// 127.0.0.1 and from the networks `trustedNetworks` names (CIDR). Most tests share one
    /// (`shared`); a test that needs other addresses starts its own and `stop()`s it.
    public init(extraAddresses: [String] = [], trustedNetworks: [String] = []) throws {
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
        port = try FreePort.find()
        try PrivatePostgres.run(
            [
                binaries + "/initdb", "-D", directory + "/data", "-U", "hearth", "--auth=trust", "-E", "UTF8",
                "--no-sync",
            ],
            runAs: runAs
        )
        if !trustedNetworks.isEmpty {
            let rules = trustedNetworks.map { "host all all \($0) trust\n" }.joined()
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/data/pg_hba.conf"))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(rules.utf8))
            try handle.close()
        }
        let addresses = (["127.0.0.1"] + extraAddresses).joined(separator: ",")
        // `fsync=off`: the tests crash PostgreSQL's processes (`restart`, `stop`), never the
        // machine, and a commit's WAL in the page cache survives those. With it on, a commit
        // waited for a disk that the same machine's build kept busy: 0.8 s and more, and a
        // lease renewal or commit past its time bound moved namespaces mid-test.
        options =
            "-p \(port) -k \(directory) -c listen_addresses=\(addresses) -c max_connections=200 -c fsync=off"
        try PrivatePostgres.run(
            [binaries + "/pg_ctl", "-D", directory + "/data", "-o", options, "-l", directory + "/log", "-w", "start"],
            runAs: runAs
        )
        let first = PrivatePostgres.stopAtExit.withLock { servers in
            servers[directory] = (binaries + "/pg_ctl", runAs)
            return servers.count == 1
        }
        if first {
            atexit {
                for (directory, (pgCtl, runAs)) in PrivatePostgres.stopAtExit.withLock({ $0 }) {
                    PrivatePostgres.stop(pgCtl: pgCtl, directory: directory, runAs: runAs)
                }
            }
        }
    }

    /// The servers still running, by directory: stopped when the process exits.
    private static let stopAtExit = Mutex<[String: (String, [String])]>([:])

    /// Stops the server (as a crash) and removes its files.
    public func stop() {
        guard let (pgCtl, runAs) = PrivatePostgres.stopAtExit.withLock({ $0.removeValue(forKey: directory) }) else {
            return
        }
        PrivatePostgres.stop(pgCtl: pgCtl, directory: directory, runAs: runAs)
    }

    private static func stop(pgCtl: String, directory: String, runAs: [String]) {
        try? PrivatePostgres.run([pgCtl, "-D", directory + "/data", "-m", "immediate", "stop"], runAs: runAs)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A new, empty database of this server, as `--cluster` names it
    /// (`postgresql://hearth@HOST:PORT/NAME`, HOST 127.0.0.1 unless one of the extra addresses).
    public func database(host: String = "127.0.0.1") throws -> String {
        let name = "hearth_\(databases.add(1, ordering: .relaxed).newValue)"
        try PrivatePostgres.run(
            [binaries + "/createdb", "-h", "127.0.0.1", "-p", "\(port)", "-U", "hearth", name],
            runAs: []
        )
        return "postgresql://hearth@\(host):\(port)/\(name)"
    }

    /// The rows `sql` returns in `database` (a URL from `database()`), one line each, columns
    /// separated by `|` (`psql -At`).
    public func query(_ sql: String, in database: String) throws -> [String] {
        let name = String(database.split(separator: "/").last ?? "")
        let output = try PrivatePostgres.run(
            [binaries + "/psql", "-h", "127.0.0.1", "-p", "\(port)", "-U", "hearth", "-At", "-c", sql, name],
            runAs: []
        )
        return output.split(separator: "\n").map(String.init)
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`: as a crash) and starts it again on
    /// the same port, waiting until it accepts connections.
    public func restart() throws {
        try PrivatePostgres.run(
            [binaries + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "stop"],
            runAs: runAs
        )
        try PrivatePostgres.run(
            [binaries + "/pg_ctl", "-D", directory + "/data", "-o", options, "-l", directory + "/log", "-w", "start"],
            runAs: runAs
        )
    }

    /// The directory holding `initdb`, `pg_ctl` and `createdb`: Debian's
    /// `/usr/lib/postgresql/<newest>/bin`, else one on `PATH`.
    private static func findBinaries() -> String? {
        let fileManager = FileManager.default
        let needed = ["initdb", "pg_ctl", "createdb"]
        let versions = (try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let debian = versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "/usr/lib/postgresql/\($0)/bin" }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (debian + path).first { directory in
            needed.allSatisfy { fileManager.isExecutableFile(atPath: directory + "/" + $0) }
        }
    }

    /// Runs a setup command and waits for it (`TestCommand`). Its output goes to a file, not a
    /// pipe: `pg_ctl start` leaves the server running with what it inherited.
    @discardableResult
    private static func run(_ arguments: [String], runAs: [String]) throws -> String {
        let command = runAs + arguments
        let status: Int32
        let output: Data
        do {
            (status, output) = try TestCommand.spawn(command, errorsToOutput: true)
        } catch {
            throw TestSetupError("cannot start \(command[0]): \(error)")
        }
        let text = String(decoding: output, as: UTF8.self)
        guard status == 0 else {
            throw TestSetupError("\(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }
}

public struct TestSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
