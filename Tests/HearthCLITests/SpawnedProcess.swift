import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, in place of Foundation's `Process`.
///
/// Foundation's `Process.run()` on Linux (this toolchain) reads `/proc/self/fd` to find the
/// descriptors to close and copies each whole 256-byte `d_name` out of the directory buffer: when
/// an entry sits at the end of the buffer and the next page is unmapped, it crashes (SIGSEGV in
/// `memcpy`; swift-corelibs-foundation PR #5472). The test process holds hundreds of sockets, so
/// the suite crashed about one run in ten. Here the child's descriptors above 2 are closed by
/// `posix_spawn_file_actions_addclosefrom_np` instead, in the child.
final class SpawnedProcess: Sendable {
    enum TerminationReason: Equatable {
        case exit
        case uncaughtSignal
    }

    let arguments: [String]
    let processIdentifier: pid_t
    /// The raw `waitpid` status once the child was reaped.
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `executable arguments…` with `environment`, in `directory`, its standard input read
    /// from `stdin` (nil: `/dev/null`), its output and errors written to `stdout` and `stderr`
    /// (created or truncated; nil: `/dev/null`).
    init(
        executable: String,
        arguments: [String],
        environment: [String: String],
        directory: String? = nil,
        stdin: String? = nil,
        stdout: String? = nil,
        stderr: String? = nil
    ) throws {
        self.arguments = arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard let closeFrom = Self.addCloseFrom, let changeDirectory = Self.addChangeDirectory else {
            throw CocoaError(
                .featureUnsupported,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "glibc 2.34 or later is needed (posix_spawn_file_actions_addclosefrom_np)"
                ]
            )
        }
        _ = closeFrom(&actions, 3)
        if let directory { _ = changeDirectory(&actions, directory) }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else {
            throw CocoaError(
                .fileReadUnknown,
                userInfo: [
                    NSLocalizedDescriptionKey: "posix_spawn \(executable): \(String(cString: strerror(result)))"
                ]
            )
        }
        processIdentifier = pid
    }

    // glibc's `_np` file actions are declared only under `_GNU_SOURCE`, which the Glibc module
    // is not built with: looked up by name.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory =
        @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
        ) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
    private static let addChangeDirectory: AddChangeDirectory? = dlsym(nil, "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: AddChangeDirectory.self) }

    /// Whether the child has not exited yet (reaps it once it has).
    var isRunning: Bool { status() == nil }

    /// The exit status, or the number of the signal that ended it; only once it is not running.
    var terminationStatus: Int32 {
        guard let status = status() else { return -1 }
        return Self.exited(status) ? (status >> 8) & 0xFF : status & 0x7F
    }

    var terminationReason: TerminationReason {
        guard let status = status() else { return .exit }
        return Self.exited(status) ? .exit : .uncaughtSignal
    }

    /// `WIFEXITED` (the C macro is not imported).
    private static func exited(_ status: Int32) -> Bool { status & 0x7F == 0 }

    /// The raw status once the child ended (nil while it runs).
    private func status() -> Int32? {
        reaped.withLock { reaped in
            if let reaped { return reaped }
            var status: Int32 = 0
            let result = waitpid(processIdentifier, &status, WNOHANG)
            if result == -1, errno == ECHILD {
                // Reaped elsewhere: gone, with its status lost (reported as exit 255).
                reaped = 255 << 8
                return reaped
            }
            // No WUNTRACED: waitpid reports only termination.
            guard result == processIdentifier else { return nil }
            reaped = status
            return status
        }
    }
}
