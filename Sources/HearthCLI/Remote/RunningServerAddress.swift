import ArgumentParser
import Foundation
import HearthCore
import HearthServer

/// Where the CLI finds a running server: `--url` and `--admin-secret` (or `HEARTH_URL`,
/// `HEARTH_ADMIN_SECRET`), else the file the server keeps in its data directory while it runs
/// (`RunningServerFile`: its address and admin credential, mode 0600).
struct RunningServerAddress: Sendable {
    let host: String
    let port: Int
    let adminSecret: String

    /// - Parameter missing: what to throw when no URL is given and no server runs on
    ///   `dataDirectory` (nil: that no server runs there).
    static func find(
        url: String?,
        adminSecret: String?,
        dataDirectory: String,
        environment: Environment,
        missing: (any Error)? = nil
    ) throws
        -> RunningServerAddress
    {
        let url = url ?? environment.string(nil, "HEARTH_URL")
        let secret = adminSecret ?? environment.string(nil, "HEARTH_ADMIN_SECRET")
        if let url {
            guard let secret else {
                throw ValidationError(
                    "With '--url', give the server's admin secret too ('--admin-secret' or HEARTH_ADMIN_SECRET)."
                )
            }
            return try parse(url, adminSecret: secret)
        }
        guard let running = RunningServerFile.read(in: dataDirectory) else {
            if let missing { throw missing }
            throw CLIError(
                .remote,
                "No Hearth server is running on the data directory '\(dataDirectory)' (no "
                    + "\(RunningServerFile.fileName) there). Start one, or give '--url' and '--admin-secret'."
            )
        }
        return try parse(running.url, adminSecret: secret ?? running.adminSecret)
    }

    private static func parse(_ url: String, adminSecret: String) throws -> RunningServerAddress {
        guard let components = URLComponents(string: url), let host = components.host else {
            throw ValidationError("Invalid value '\(url)' for '--url': use http://HOST:PORT.")
        }
        guard components.scheme == "http" else {
            throw ValidationError(
                "The CLI reaches servers over plain HTTP on this machine only; for '\(url)' use curl with "
                    + "'Authorization: Bearer <admin secret>'."
            )
        }
        return RunningServerAddress(host: host, port: components.port ?? 80, adminSecret: adminSecret)
    }
}
