import ArgumentParser
import HearthCore

/// `--path`, `--ns` and `--data`, shared by `import` and `export`.
struct DataOptions: ParsableArguments {
    @Option(help: "Location in the database.")
    var path: String = "/"

    @Option(help: "Database (namespace) name.")
    var ns: String = "default"

    @Option(help: "Data directory (env HEARTH_DATA; default .hearth).")
    var data: String?

    @Option(
        help: ArgumentHelp(
            "A running server's URL, http://HOST:PORT (env HEARTH_URL); by default a server running on --data is "
                + "found by itself."
        )
    )
    var url: String?

    @Option(help: "The running server's admin secret, with --url (env HEARTH_ADMIN_SECRET).")
    var adminSecret: String?

    /// The running server to go through: the one given by `--url`, else the one serving the
    /// data directory when a server holds it; nil when the data directory is free.
    /// - Throws: `CLIError` `.dataDirectoryInUse` when a server holds it but cannot be found.
    func runningServer(_ environment: Environment) throws -> RunningServerAddress? {
        let directory = dataDirectory(environment)
        let named = url != nil || environment.string(nil, "HEARTH_URL") != nil
        guard named || DataDirectory.isLockedByAnotherProcess(directory) else { return nil }
        return try RunningServerAddress.find(
            url: url,
            adminSecret: adminSecret,
            dataDirectory: directory,
            environment: environment,
            missing: DataDirectory.inUse(directory)
        )
    }

    /// The data directory: the flag, else `HEARTH_DATA`, else `.hearth`.
    func dataDirectory(_ environment: Environment) -> String {
        DataDirectory.path(data, environment)
    }

    /// `--path` as a validated `DataPath`.
    /// - Throws: `ValidationError` (exit 64) for a path Firebase would refuse.
    func dataPath() throws -> DataPath {
        do {
            return try DataPath.parse(path)
        } catch {
            throw ValidationError("Invalid value '\(path)' for '--path': \(error)")
        }
    }
}
