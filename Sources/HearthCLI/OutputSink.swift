import Foundation

/// Where `export` writes: stdout, or a file that appears complete or not at all (written beside
/// it under a temporary name, renamed on success).
final class OutputSink: Sendable {
    private let descriptor: Int32
    private let path: String?
    private let temporaryPath: String?

    /// Writes to `path` (created with `permissions`), or to stdout when nil or `-`.
    init(path: String?, permissions: mode_t = 0o644) throws {
        guard let path, path != "-" else {
            descriptor = STDOUT_FILENO
            self.path = nil
            temporaryPath = nil
            return
        }
        let temporary = path + ".partial-\(getpid())"
        descriptor = Foundation.open(temporary, O_WRONLY | O_CREAT | O_TRUNC, permissions)
        guard descriptor >= 0 else {
            throw CLIError(.file, "Cannot write '\(path)': \(String(cString: strerror(errno))).")
        }
        self.path = path
        temporaryPath = temporary
    }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError(.file, "Cannot write '\(path ?? "stdout")': \(String(cString: strerror(errno))).")
            }
            offset += count
        }
    }

    /// Flushes and, for a file, moves it into place.
    func finish() throws {
        guard let path, let temporaryPath else { return }
        guard fsync(descriptor) == 0, close(descriptor) == 0, rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw CLIError(.file, "Cannot write '\(path)': \(reason).")
        }
    }

    /// Removes a partly written file.
    func abandon() {
        guard let temporaryPath else { return }
        close(descriptor)
        unlink(temporaryPath)
    }
}
