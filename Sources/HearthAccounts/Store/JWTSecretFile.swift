import Foundation

/// The JWT secret that `hearth serve` uses when none is given: generated once and kept in
/// `<data>/jwt-secret` (mode 0600), so ID tokens survive restarts.
public enum JWTSecretFile {
    public static let fileName = "jwt-secret"

    /// The secret stored in `directory`, created (32 random bytes, base64url) when missing.
    /// - Returns: the secret and whether it was created now.
    public static func loadOrCreate(in directory: String) throws(AccountsError) -> (secret: String, created: Bool) {
        let path = directory + "/" + fileName
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) {
            let secret = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !secret.isEmpty else {
                throw .storage("The JWT secret file '\(path)' is empty; delete it to generate a new one.")
            }
            return (secret, false)
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .storage("Cannot create the data directory '\(directory)': \(error.localizedDescription)")
        }
        let secret = Secrets.randomToken()
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            // Another process created it first: use theirs.
            if errno == EEXIST, let raced = try? String(contentsOfFile: path, encoding: .utf8) {
                return (raced.trimmingCharacters(in: .whitespacesAndNewlines), false)
            }
            throw .storage("Cannot create the JWT secret file '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let bytes = Array((secret + "\n").utf8)
        guard write(fd, bytes, bytes.count) == bytes.count, fsync(fd) == 0 else {
            throw .storage("Cannot write the JWT secret file '\(path)': \(String(cString: strerror(errno)))")
        }
        return (secret, true)
    }
}
