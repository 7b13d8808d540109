import Foundation
import HearthTestSupport
import Testing

/// The disk-fault shim (`scripts/faults/diskfault.c`, loaded with `LD_PRELOAD` into a `hearth`
/// child only) and its switch for one data directory: `set(.full)` makes the disk under it fail
/// from the child's next call on, `set(nil)` heals it. See docs/disk-faults.md.
struct DiskFault {
    enum Kind: String {
        /// Writes, creating files and renames fail with ENOSPC.
        case full
        /// fsync and fdatasync fail with EIO.
        case fsync
        /// Anything that writes fails with EROFS.
        case readonly
        /// fsync and fdatasync wait (then succeed) until the switch changes; `stalled` tells when
        /// one waits.
        case stall
        /// Opening a file under the directory fails with EMFILE, as in a process out of file
        /// descriptors; `refused` tells when one was refused.
        case nofiles
    }

    /// The data directory whose files fail.
    let directory: URL
    /// The control file the shim reads on every call.
    let control: URL

    /// A switch (off) for `directory`, its control file in `scratch`.
    init(directory: URL, scratch: URL) throws {
        self.directory = directory
        control = scratch.appendingPathComponent("disk-fault-switch")
        _ = try Self.library.get()
    }

    /// The child's environment that loads the shim.
    var environment: [String: String] {
        [
            "LD_PRELOAD": (try? Self.library.get()) ?? "",
            "HEARTH_FAULT_DIR": directory.path,
            "HEARTH_FAULT_SWITCH": control.path,
        ]
    }

    /// Whether an fsync or fdatasync under `stall` has waited (the shim's marker file).
    var stalled: Bool {
        FileManager.default.fileExists(atPath: control.path + ".stalled")
    }

    /// Whether an open was refused under `nofiles` (the shim's marker file).
    var refused: Bool {
        FileManager.default.fileExists(atPath: control.path + ".refused")
    }

    /// Turns the fault `kind` on, or every fault off (nil).
    func set(_ kind: Kind?) throws {
        if let kind {
            try Data(kind.rawValue.utf8).write(to: control)
        } else {
            try? FileManager.default.removeItem(at: control)
        }
    }

    /// `hearth serve` on `directory` (no fault switched on yet), with the shim loaded and
    /// `scratch` as its working directory.
    func startServer(in scratch: URL, arguments: [String] = []) async throws -> ProcessTestServer {
        try await ProcessTestServer.start(
            dataDirectory: directory,
            workingDirectory: scratch,
            arguments: arguments,
            environment: environment
        )
    }

    /// The shim, compiled once per test process with the toolchain's C compiler.
    static let library: Result<String, any Error> = Result { try build() }

    private static func build() throws -> String {
        let source = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/faults/diskfault.c")
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("hearth-diskfault-\(getpid())-\(UUID().uuidString).so")
        guard let compiler = compiler() else {
            throw TestFailure("no C compiler (clang or cc) on PATH to build \(source.path)")
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-diskfault-\(getpid()).log")
        let process = try SpawnedProcess(
            executable: compiler,
            arguments: ["-shared", "-fPIC", "-O1", "-o", output.path, source.path, "-ldl"],
            environment: ProcessInfo.processInfo.environment,
            stdout: log.path,
            stderr: log.path
        )
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning {
            if ContinuousClock.now > deadline {
                kill(process.processIdentifier, SIGKILL)
                throw TestFailure("compiling \(source.path) took over 120 s")
            }
            usleep(10_000)
        }
        guard process.terminationStatus == 0 else {
            let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw TestFailure("\(compiler) could not build \(source.path): \(errors)")
        }
        return output.path
    }

    /// `clang` (the Swift toolchain has one) or `cc`, from PATH.
    private static func compiler() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["clang", "cc"] {
            for directory in path.split(separator: ":") {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }
}

/// What the fault tests check around a faulted server.
enum FaultChecks {
    /// A REST write answered with `status` and a JSON error containing `words`.
    static func expectRefused(
        _ response: ProcessTestServer.Response,
        status: Int,
        saying words: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, "\(response.body)", sourceLocation: sourceLocation)
        let json = try? JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
        let message = json?["error"] as? String
        #expect(message?.contains(words) == true, "\(response.body)", sourceLocation: sourceLocation)
    }

    /// Puts `value` at `path` over a WebSocket authenticated as admin; the reply's status and data.
    static func realtimePut(
        _ server: ProcessTestServer,
        _ path: String,
        _ value: String
    ) async throws -> (status: String?, message: String?) {
        // Thirty seconds for each answer, the hello included, as `expectWritesResume` waits: a
        // loaded box (a parallel suite) has taken more than ten to answer through a fault.
        let client = try await RealtimeTestClient.connect(port: server.port, readHello: false)
        let reply: [String: Any]
        do {
            _ = try await client.nextMessage(timeout: .seconds(30))
            let auth = client.request("auth", #"{"cred":"\#(server.adminSecret ?? "")"}"#)
            _ = try await client.response(to: auth, timeout: .seconds(30))
            let put = client.request("p", #"{"p":"\#(path)","d":\#(value)}"#)
            reply = try await client.response(to: put, timeout: .seconds(30)).body
        } catch {
            await client.close()
            throw error
        }
        await client.close()
        return (reply["s"] as? String, reply["d"] as? String)
    }

    /// Stops `server` (cleanly), starts a server without the shim on `data`, and expects each
    /// acknowledged `(path, value)` there (paths without `.json`).
    static func expectStoredAfterRestart(
        _ server: ProcessTestServer,
        data: URL,
        workingDirectory: URL,
        _ acknowledged: [(path: String, value: String)],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(try await server.terminate().status == 0, sourceLocation: sourceLocation)
        let again = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: workingDirectory)
        for (path, value) in acknowledged {
            let stored = try await again.request("GET", "\(path).json", admin: true).body
            #expect(stored == value, "\(path)", sourceLocation: sourceLocation)
        }
        _ = try await again.terminate()
    }

    /// Retries a write until the server takes it (writes resume once the fault is gone).
    static func expectWritesResume(_ server: ProcessTestServer, path: String, body: String) async throws {
        try await eventually(timeout: .seconds(30), interval: .milliseconds(100)) {
            try await server.request("PUT", path, body: body, admin: true).status == 200
        }
    }
}
