import Foundation
import HearthCore

/// `<data>/server.json` (mode 0600) while a server runs on the data directory: its address and
/// admin credential, so that the CLI on the same machine (`hearth backup`, and `export` or
/// `import` of a running database) reaches it without being told. Removed when the server
/// stops; a stale file (after `kill -9`) names a process that is gone and is ignored.
public enum RunningServerFile {
    public static let fileName = "server.json"

    public struct Contents: Sendable {
        public let url: String
        public let adminSecret: String
        public let pid: Int32
    }

    static func write(in directory: String, url: String, adminSecret: String) throws {
        let json: JSONValue = .object([
            ("url", .string(url)), ("adminSecret", .string(adminSecret)), ("pid", .number(Double(getpid()))),
        ])
        var bytes: [UInt8] = []
        JSONRenderer.render(json, into: &bytes)
        let path = directory + "/" + fileName
        let temporary = path + ".tmp"
        guard
            FileManager.default.createFile(
                atPath: temporary,
                contents: Data(bytes),
                attributes: [.posixPermissions: 0o600]
            ),
            rename(temporary, path) == 0
        else { throw HearthServerError("Cannot write '\(path)'.") }
    }

    static func remove(in directory: String) {
        unlink(directory + "/" + fileName)
    }

    /// The running server's address and credential, or nil when none runs there.
    public static func read(in directory: String) -> Contents? {
        guard let data = FileManager.default.contents(atPath: directory + "/" + fileName),
            let json = try? JSONParser.parse(Array(data)),
            let url = json["url"]?.stringValue, let secret = json["adminSecret"]?.stringValue,
            let pid = json["pid"]?.numberValue
        else { return nil }
        // A file left by a server killed with -9: no such process.
        if kill(pid_t(pid), 0) != 0 && errno == ESRCH { return nil }
        return Contents(url: url, adminSecret: secret, pid: pid_t(pid))
    }
}
