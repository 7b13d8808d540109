import ArgumentParser
import Foundation
import HearthStore

/// `hearth import FILE`: streams a JSON file into a stopped database.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a JSON file into the database (replacing what is at --path).",
        discussion: """
            Reads the file in 1 MiB chunks, so memory stays far below the file's size. A stopped \
            data directory is written directly; a running server's through its REST API, as one \
            PUT (atomic, listeners notified, up to the server's --max-body-bytes; the server keeps \
            its address in the data directory while it runs; or give --url and --admin-secret).
            """
    )

    @Argument(help: "JSON file to import ('-' for stdin).")
    var file: String

    @OptionGroup var options: DataOptions

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let environment = Environment(ProcessInfo.processInfo.environment)
        let path = try options.dataPath()
        let directory = options.dataDirectory(environment)
        let logger = LoggingOptions.bootstrap(level: try logging.resolve(environment))

        let reader = try FileChunkReader(path: file)
        if let server = try options.runningServer(environment) {
            let progress = ProgressBar(label: "import", total: reader.totalBytes)
            try await RemoteTransfer.importJSON(
                from: reader,
                at: path,
                ns: options.ns,
                into: server,
                progress: progress
            )
            progress.finish()
            return
        }
        let store = try DataDirectory.open(directory, create: true)
        defer { store.close() }
        let namespace: NamespaceStore
        do {
            namespace = try store.namespace(options.ns)
        } catch {
            throw ValidationError("Invalid value '\(options.ns)' for '--ns': \(error)")
        }
        let progress = ProgressBar(label: "import", total: reader.totalBytes)
        let counter = ByteCounter()
        let start = ContinuousClock.now
        do {
            try await namespace.importJSON(
                at: path,
                nextChunk: { try reader.next() },
                progress: { bytes in
                    progress.update(bytes)
                    counter.set(bytes)
                }
            )
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(.store, "Import of '\(reader.displayName)' failed: \(error)", cause: error)
        }
        progress.finish()
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        logger.info(
            "Imported",
            metadata: [
                "hearth.file": "\(reader.displayName)", "hearth.ns": "\(options.ns)", "hearth.path": "\(path)",
                "hearth.bytes": "\(counter.add(0))", "hearth.seconds": "\((seconds * 1000).rounded() / 1000)",
            ]
        )
    }
}
