import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a command-line tool a test needs (`openssl`, `curl`, `gzip`) with `posix_spawnp`, not
/// Foundation's `Process`: on Linux `Process.run()` scans `/proc/self/fd` copying 256 bytes of
/// each entry's name (swift-corelibs-foundation#5472), which reads past its buffer and crashes
/// the whole test process when the suite holds many descriptors open at that moment.
public enum TestCommand {
    /// Runs `arguments` (the first found on `PATH`) in `directory` (nil: this one) and waits
    /// for it; its standard output, or a failure naming its exit status. Standard input and
    /// error are `/dev/null`; the output goes to a temporary file, not a pipe, so nothing
    /// waits on a reader.
    public static func run(_ arguments: [String], in directory: String? = nil) throws -> Data {
        let (status, output) = try spawn(arguments, in: directory, errorsToOutput: false)
        guard status == 0 else {
            throw TestFailure("\(arguments.prefix(2).joined(separator: " ")) exited with status \(status)")
        }
        return output
    }

    /// `bytes` compressed by the system's `gzip` at `level` (`-n`: no name or time in the header).
    public static func gzip(_ bytes: [UInt8], level: Int = 6) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(bytes).write(to: directory.appendingPathComponent("in"))
        _ = try run(["/bin/sh", "-c", "gzip -n -\(level) -c in > in.gz"], in: directory.path)
        return Array(try Data(contentsOf: directory.appendingPathComponent("in.gz")))
    }

    /// Runs `arguments` as `run(_:in:)` does and answers its wait status and output, whatever
    /// the status; with `errorsToOutput`, standard error goes to the output too.
    public static func spawn(
        _ arguments: [String],
        in directory: String? = nil,
        errorsToOutput: Bool
    ) throws -> (status: Int32, output: Data) {
        precondition(!arguments.isEmpty, "a command")
        let command = directory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0] + arguments } ?? arguments
        let outputPath = NSTemporaryDirectory() + "hearth-test-command-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if errorsToOutput {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, command[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw TestFailure("cannot start \(command[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status, (try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data())
    }
}
