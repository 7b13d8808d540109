import ArgumentParser
import Foundation
import HearthStorage
import HearthStore

/// `hearth doctor`: checks a stopped data directory's stores and, with `--repair`, repairs what
/// LevelDB can after copying them aside (docs/disk-faults.md).
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a stopped data directory for damage; with --repair, repair what LevelDB can.",
        discussion: """
            Opens the database store (<data>/db), the accounts store (<data>/accounts/db) and the \
            storage catalog (<data>/storage/db) with LevelDB's paranoid checks, reads every key \
            verifying every block's checksum, checks Hearth's namespace table, reads every storage \
            object's file against its catalogued size and MD5, lists files no object names, and \
            prints a report; exits 1 when anything is damaged. --repair first copies each damaged \
            store aside (<data>.damaged-<time>/, printed), then runs LevelDB's repair (records in \
            damaged blocks are lost) and checks again; it moves storage files no object names into \
            the same directory (the next start would delete them). A missing or mismatched object \
            cannot be repaired: delete it or restore a backup. Refuses while a server runs on the \
            directory.
            """
    )

    @Option(help: "The data directory (env HEARTH_DATA; default .hearth).")
    var data: String?

    @Flag(help: "Repair damaged stores (after copying them aside).")
    var repair = false

    func run() async throws {
        let environment = Environment(ProcessInfo.processInfo.environment)
        let directory = DataDirectory.path(data, environment)
        try DataDirectory.checkIsDirectory(directory, mayBeMissing: false)
        if DataDirectory.isLockedByAnotherProcess(directory) {
            throw CLIError(
                .dataDirectoryInUse,
                "A Hearth server is running on '\(directory)': stop it first (the doctor works on a stopped "
                    + "data directory only)."
            )
        }
        let stores = Self.stores(in: directory)
        guard !stores.isEmpty else {
            throw CLIError(.dataDirectoryMissing, "'\(directory)' holds no Hearth store (no db/ directory).")
        }
        var checks = stores.map { StoreCheck.run(path: $0.path, tree: $0.tree) }
        if let blocked = checks.first(where: { $0.cannotOpen != nil }), let reason = blocked.cannotOpen {
            throw CLIError(
                .store,
                "Cannot check '\(blocked.path)': \(reason). That is not damage: fix it first (LevelDB writes "
                    + "its lock and log even to read), then run the doctor again."
            )
        }
        Self.print(checks, heading: "Checked")
        let catalog = zip(stores, checks).first { $0.0.path == directory + "/storage/db" }
        var objects = catalog?.1.isHealthy == true ? try Self.checkObjects(in: directory) : nil
        if let objects { Self.print(objects, heading: "Checked") }
        let damaged = zip(stores, checks).filter { !$1.isHealthy }.map(\.0)
        let aside = Self.asidePath(for: directory)
        if damaged.isEmpty && objects?.isHealthy != false {
            if let objects { try Self.handleStrayFiles(objects, in: directory, aside: aside, repair: repair) }
            Self.write("Healthy: nothing to repair.\n")
            return
        }
        guard repair else {
            throw CLIError(
                .store,
                "The data directory '\(directory)' is damaged. Run `hearth doctor --data \(directory) --repair` "
                    + "to copy the damaged stores aside and repair what LevelDB can (records in damaged blocks "
                    + "are lost), or restore a backup (`hearth restore`)."
            )
        }
        if !damaged.isEmpty {
            try Self.copyAside(damaged.map(\.path), from: directory, to: aside)
            Self.write("Copied the damaged stores to '\(aside)' (delete it once you are satisfied).\n")
            for store in damaged {
                do {
                    try StoreCheck.repair(path: store.path)
                } catch {
                    throw CLIError(.store, "\(error) The copy in '\(aside)' is untouched.", cause: error)
                }
            }
            checks = damaged.map { StoreCheck.run(path: $0.path, tree: $0.tree) }
            Self.print(checks, heading: "After repair")
            guard checks.allSatisfy(\.isHealthy) else {
                throw CLIError(
                    .store,
                    "LevelDB could not repair everything. Restore a backup (`hearth restore`) into a new data "
                        + "directory; the damaged stores are kept in '\(aside)'."
                )
            }
            if damaged.contains(where: { $0.path == directory + "/storage/db" }) {
                // Records the repair lost leave their objects' files unnamed: checked again.
                objects = try Self.checkObjects(in: directory)
                if let objects { Self.print(objects, heading: "After repair") }
            }
        }
        if let objects {
            try Self.handleStrayFiles(objects, in: directory, aside: aside, repair: true)
            guard objects.isHealthy else {
                throw CLIError(
                    .store,
                    "\(objects.problems.count) storage objects are missing or do not match their metadata; the "
                        + "doctor cannot repair bytes. Delete those objects (DELETE /v0/b/{bucket}/o/{name}) or "
                        + "restore a backup (`hearth restore`) into a new data directory."
                )
            }
        }
        Self.write(
            "Repaired. Records in damaged blocks are lost and a delete among them may be undone: check the "
                + "data (`hearth export`, `hearth chat check`) before serving it.\n"
        )
    }

    /// The objects' check of `directory` (nil without a storage catalog).
    static func checkObjects(in directory: String) throws -> ObjectStoreCheck? {
        do throws(StorageError) {
            return try ObjectStoreCheck.run(dataDirectory: directory)
        } catch {
            throw CLIError(.store, "Cannot check the storage objects: \(error.message)", cause: error)
        }
    }

    /// Reports the files no object names; with `repair`, moves them into `aside`.
    static func handleStrayFiles(
        _ objects: ObjectStoreCheck,
        in directory: String,
        aside: String,
        repair: Bool
    ) throws {
        let count = objects.orphans.count + objects.leftovers.count
        guard count > 0 else { return }
        guard repair else {
            write(
                "\(count) storage files no object names (what a killed upload or delete leaves, or the bytes of "
                    + "objects whose catalog records were lost): the next start deletes them; `--repair` moves "
                    + "them aside first.\n"
            )
            return
        }
        do {
            let moved = try objects.moveAside(from: directory, to: aside)
            write("Moved \(moved) storage files no object names to '\(aside)/storage'.\n")
        } catch {
            throw CLIError(
                .file,
                "Could not move the storage files no object names to '\(aside)' (\(error.localizedDescription)).",
                cause: error
            )
        }
    }

    /// The stores of `directory`: the tree store and, when present, the accounts store and the
    /// storage catalog.
    static func stores(in directory: String) -> [(path: String, tree: Bool)] {
        var stores: [(path: String, tree: Bool)] = []
        let manager = FileManager.default
        if manager.fileExists(atPath: directory + "/db") { stores.append((directory + "/db", true)) }
        if manager.fileExists(atPath: directory + "/accounts/db") { stores.append((directory + "/accounts/db", false)) }
        if manager.fileExists(atPath: directory + "/storage/db") { stores.append((directory + "/storage/db", false)) }
        return stores
    }

    /// `<directory>.damaged-<UTC time>`: where the doctor keeps what it moves or copies aside.
    static func asidePath(for directory: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let trimmed = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return "\(trimmed).damaged-\(formatter.string(from: Date()))"
    }

    /// Copies each of `paths` (inside `directory`) to `aside`, keeping their paths relative to
    /// `directory`.
    static func copyAside(_ paths: [String], from directory: String, to aside: String) throws {
        let manager = FileManager.default
        do {
            for path in paths {
                let target = aside + path.dropFirst(directory.count)
                try manager.createDirectory(
                    atPath: (target as NSString).deletingLastPathComponent,
                    withIntermediateDirectories: true
                )
                try manager.copyItem(atPath: path, toPath: target)
            }
        } catch {
            throw CLIError(
                .file,
                "Could not copy the damaged stores to '\(aside)' (\(error.localizedDescription)); nothing was "
                    + "repaired. Free space (the copy needs as much as the stores), then run the repair again.",
                cause: error
            )
        }
    }

    private static func print(_ checks: [StoreCheck], heading: String) {
        for check in checks {
            var lines = "\(heading) \(check.path): "
            if check.isHealthy {
                lines += "healthy, \(check.keys) keys, \(ProgressBar.megabytes(Int64(check.bytes))) MB"
                if !check.namespaces.isEmpty { lines += ", databases: \(check.namespaces.joined(separator: ", "))" }
                lines += ".\n"
            } else {
                lines += "DAMAGED\n" + check.problems.map { "  - \($0)\n" }.joined()
            }
            write(lines)
        }
    }

    private static func print(_ check: ObjectStoreCheck, heading: String) {
        var lines = "\(heading) the storage objects: "
        if check.isHealthy {
            lines += "\(check.objects) objects, \(ProgressBar.megabytes(Int64(check.bytes))) MB, every file matches "
            lines += "its size and MD5"
        } else {
            lines += "DAMAGED\n" + check.problems.map { "  - \($0)\n" }.joined()
            lines += "  (\(check.objects - check.problems.count) of \(check.objects) objects match their size and MD5)"
        }
        if check.isClusterCopy {
            lines += "; a cluster node's copy: \(check.notCached) objects' bytes are only in the cluster's PostgreSQL"
            lines += " (not checked here)"
        }
        if !check.orphans.isEmpty { lines += "; \(check.orphans.count) files in storage/objects no object names" }
        if !check.leftovers.isEmpty { lines += "; \(check.leftovers.count) part files in storage/tmp" }
        write(lines + ".\n")
    }

    private static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
