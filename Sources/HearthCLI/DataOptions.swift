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

    /// The data directory: the flag, else `HEARTH_DATA`, else `.hearth`.
    func dataDirectory(_ environment: Environment) -> String {
        environment.string(data, "HEARTH_DATA") ?? ".hearth"
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
