import Foundation
import HearthTestSupport
import Testing

/// The built `hearth` binary, run as a child process.
struct HearthProcess {
    /// The `hearth` executable beside the test bundle (`.build/<triple>/debug/hearth`), or `HEARTH_BINARY`.
    static let binary: URL = {
        if let override = ProcessInfo.processInfo.environment["HEARTH_BINARY"] {
            return URL(fileURLWithPath: override)
        }
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for directory in candidates {
            // On macOS the bundle is `….xctest/Contents/MacOS/…`: walk up to the build directory.
            var current = directory
            for _ in 0..<4 {
                let candidate = current.appendingPathComponent("hearth")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                current = current.deletingLastPathComponent()
            }
        }
        return URL(fileURLWithPath: ".build/debug/hearth")
    }()

    /// The environment of a child: this process's, without any `HEARTH_*` variable, plus `extra`.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        environment.merge(extra) { $1 }
        return environment
    }

    /// What a finished run printed and how it exited.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `hearth arguments…` to completion.
    static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        directory: URL? = nil,
        stdin: URL? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> Result {
        let child = try Child.launch(arguments, environment: environment, directory: directory, stdin: stdin)
        let status = try await child.wait(timeout: timeout)
        return Result(status: status, stdout: child.stdout(), stderr: child.stderr())
    }
}

/// A running `hearth` process whose stdout and stderr go to temporary files.
final class Child: @unchecked Sendable {
    let process: SpawnedProcess
    private let outputURL: URL
    private let errorURL: URL
    let scratch: URL

    private init(process: SpawnedProcess, outputURL: URL, errorURL: URL, scratch: URL) {
        self.process = process
        self.outputURL = outputURL
        self.errorURL = errorURL
        self.scratch = scratch
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }

    static func launch(
        _ arguments: [String],
        environment: [String: String] = [:],
        directory: URL? = nil,
        stdin: URL? = nil,
        executable: URL = HearthProcess.binary
    ) throws -> Child {
        let scratch = try TemporaryDirectory(prefix: "hearth-cli").url
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        // The child creates both files before it runs (posix_spawn returns after its file actions).
        let process = try SpawnedProcess(
            executable: executable.path,
            arguments: arguments,
            environment: HearthProcess.environment(environment),
            directory: directory?.path,
            stdin: stdin?.path,
            stdout: outputURL.path,
            stderr: errorURL.path
        )
        return Child(process: process, outputURL: outputURL, errorURL: errorURL, scratch: scratch)
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    func stdout() -> String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
    func stderr() -> String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the exit; the status, or (after a signal) the signal number. Kills it after `timeout`.
    func wait(timeout: Duration) async throws -> Int32 {
        let process = self.process
        do {
            try await eventually(timeout: timeout) { !process.isRunning }
        } catch is ConditionTimeout {
            send(SIGKILL)
            Issue.record("hearth \(process.arguments) did not exit within \(timeout); killed")
            try await eventually(timeout: .seconds(30)) { !process.isRunning }
        }
        return process.terminationStatus
    }

    /// Kills the process if it is still running (cleanup).
    func stop() async {
        if process.isRunning {
            send(SIGKILL)
            _ = try? await wait(timeout: .seconds(10))
        }
    }
}
