public import Foundation

/// Where the cluster's state lives: a PostgreSQL URL as `--cluster` takes it,
/// `postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (`postgres://` too).
public struct ClusterAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String

    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// Parses `--cluster`'s value; the error says what is wrong with it.
    public init(parsing text: String) throws {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "postgresql" || scheme == "postgres"
        else {
            throw ClusterError.invalidAddress(
                "'\(ClusterAddress.redacted(text))' is not a PostgreSQL URL: use postgresql://USER@HOST:PORT/DATABASE."
            )
        }
        guard let host = url.host, !host.isEmpty else {
            throw ClusterError.invalidAddress(
                "The cluster URL names no host: use postgresql://USER@HOST:PORT/DATABASE."
            )
        }
        guard let user = url.user, !user.isEmpty else {
            throw ClusterError.invalidAddress(
                "The cluster URL names no user: use postgresql://USER@HOST:PORT/DATABASE."
            )
        }
        let database = String(url.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw ClusterError.invalidAddress(
                "The cluster URL names no database: use postgresql://USER@HOST:PORT/DATABASE."
            )
        }
        let port = url.port ?? 5432
        guard (1...65535).contains(port) else {
            throw ClusterError.invalidAddress("The cluster URL's port \(port) is not 1–65535.")
        }
        self.init(host: host, port: port, user: user, password: url.password, database: database)
    }

    /// The URL without its password (for logs and errors).
    public var description: String {
        "postgresql://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
    }

    private static func redacted(_ text: String) -> String {
        guard var url = URLComponents(string: text), url.password != nil else { return text }
        url.password = "***"
        return url.string ?? "(unreadable)"
    }
}
