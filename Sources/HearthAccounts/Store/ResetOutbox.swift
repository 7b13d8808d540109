import Foundation
import Synchronization

/// Where password-reset messages go instead of a mail server: one JSON object per line in
/// `<data>/accounts/outbox.jsonl` (mode 0600, since it holds live codes).
final class ResetOutbox: Sendable {
    let path: String
    private let lock = Mutex(())

    init(path: String) { self.path = path }

    /// One message, as written.
    struct Message: Sendable, Encodable {
        var type = "PASSWORD_RESET"
        var email: String
        var uid: String
        var oobCode: String
        var link: String
        /// ISO 8601.
        var createdAt: String
        var expiresAt: String
    }

    /// Appends `message` and flushes it to disk.
    func append(_ message: Message) throws(AccountsError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(message) else { throw .storage("Cannot encode an outbox message.") }
        line.append(0x0A)
        let result: Int32 = lock.withLock { _ in
            let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return errno }
            defer { close(fd) }
            let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == line.count else { return errno == 0 ? EIO : errno }
            return fsync(fd) == 0 ? 0 : errno
        }
        if result != 0 {
            throw .storage("Cannot write the outbox '\(path)': \(String(cString: strerror(result)))")
        }
    }
}
