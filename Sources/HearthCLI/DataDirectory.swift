import Foundation
import HearthCore
import HearthStore

/// Finds and opens a command's data directory, refusing one that a server is using.
enum DataDirectory {
    /// The data directory a command works on: `flag` (`--data`), else `HEARTH_DATA`, else
    /// `.hearth`.
    static func path(_ flag: String?, _ environment: Environment) -> String {
        environment.string(flag, "HEARTH_DATA") ?? ".hearth"
    }

    /// Refuses `directory` when it is a file, or, unless `mayBeMissing`, when it does not exist.
    /// - Throws: `CLIError` `.dataDirectoryMissing` or `.file`.
    static func checkIsDirectory(_ directory: String, mayBeMissing: Bool) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            if mayBeMissing { return }
            throw CLIError(.dataDirectoryMissing, "There is no Hearth data directory at '\(directory)'.")
        }
        if !isDirectory.boolValue { throw CLIError(.file, "'\(directory)' is not a directory.") }
    }

    /// Opens the store in `directory`. With `create` false, a missing directory is an error.
    /// - Throws: `CLIError.dataDirectoryInUse` when another process holds LevelDB's lock.
    /// - Parameter configuration: the store's triggers and lookup indexes (a namespace opened
    ///   without a lookup index it had drops it, to be rebuilt when the server starts).
    static func open(
        _ directory: String,
        create: Bool,
        configuration: StoreConfiguration = StoreConfiguration()
    ) throws -> Store {
        try checkIsDirectory(directory, mayBeMissing: create)
        if isLockedByAnotherProcess(directory) { throw inUse(directory) }
        do {
            return try Store.open(directory: directory, configuration: configuration)
        } catch let error as StoreError where error.code == .locked {
            // The probe above can race with a server that is starting.
            throw inUse(directory)
        } catch {
            throw CLIError(.store, "Could not open the data directory '\(directory)': \(error)", cause: error)
        }
    }

    static func inUse(_ directory: String) -> CLIError {
        CLIError(
            .dataDirectoryInUse,
            "The data directory '\(directory)' is in use by a running Hearth server. "
                + "Stop the server first, or use the REST API of the running server instead "
                + "(PUT or GET /<path>.json?auth=<admin secret>)."
        )
    }

    /// True when another process holds LevelDB's `fcntl` lock on the store of `directory`
    /// (`<directory>/db/LOCK`; `<directory>/LOCK` for a store laid out before `db/`). Only
    /// probes (`F_GETLK`): takes no lock itself.
    static func isLockedByAnotherProcess(_ directory: String) -> Bool {
        isLocked(directory + "/db/LOCK") || isLocked(directory + "/LOCK")
    }

    private static func isLocked(_ lockFile: String) -> Bool {
        let fd = Foundation.open(lockFile, O_RDWR)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        guard fcntl(fd, F_GETLK, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }
}
