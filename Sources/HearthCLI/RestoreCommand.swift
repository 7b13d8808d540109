import ArgumentParser
import Foundation
import HearthStorage
import HearthStore

/// `hearth restore FILE`: writes a backup into a new (or empty) data directory.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup (from 'hearth backup') into an empty data directory.",
        discussion: """
            Writes every database, the accounts, the token key and the storage objects (files \
            fsynced, with their metadata, download tokens and MD5) of FILE into --data, which must \
            not exist or be empty, verifying the backup's checksum as it goes; a damaged backup \
            leaves nothing behind. Then 'hearth serve --data DIR' serves the state of the moment \
            the backup was taken.
            """
    )

    @Argument(help: "The backup file ('-' for stdin).")
    var file: String

    @Option(help: "The data directory to restore into (env HEARTH_DATA; default .hearth).")
    var data: String?

    func run() async throws {
        let environment = Environment(ProcessInfo.processInfo.environment)
        let directory = DataDirectory.path(data, environment)
        let reader = try FileChunkReader(path: file)
        let existed = FileManager.default.fileExists(atPath: directory)
        let restore: BackupRestore
        let objects = ObjectRestore(dataDirectory: directory)
        do {
            restore = try BackupRestore(directory: directory, objects: objects)
        } catch {
            throw CLIError(.file, "\(error)", cause: error)
        }
        let progress = ProgressBar(label: "restore", total: reader.totalBytes)
        let header: BackupHeader
        do {
            while let chunk = try reader.next() {
                try restore.consume(chunk)
                progress.update(Int64(restore.bytesRead))
            }
            header = try restore.finish()
        } catch {
            restore.close()
            // Nothing half-restored stays behind.
            if existed {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                    try? FileManager.default.removeItem(atPath: directory + "/" + name)
                }
            } else {
                try? FileManager.default.removeItem(atPath: directory)
            }
            if let error = error as? CLIError { throw error }
            throw CLIError(.store, "The restore failed: \(error)", cause: error)
        }
        progress.finish()
        let namespaces = header.namespaces.sorted { $0.key < $1.key }.map { "\($0.key) at sequence \($0.value)" }
        ProgressBar.writeStderr(
            "Restored \(ProgressBar.megabytes(Int64(restore.bytesRead))) MB into \(directory): "
                + (namespaces.isEmpty ? "no databases" : namespaces.joined(separator: ", "))
                + "; \(objects.restored) storage objects (\(ProgressBar.megabytes(Int64(objects.bytes))) MB).\n"
        )
        if !objects.mismatched.isEmpty {
            ProgressBar.writeStderr(
                "Warning: \(objects.mismatched.count) objects were damaged on the server backed up (their bytes "
                    + "do not match their MD5) and are restored as they were: "
                    + objects.mismatched.prefix(20).joined(separator: ", ") + ". `hearth doctor` lists them.\n"
            )
        }
    }
}
