import ArgumentParser
import Foundation
import HearthCore
import HearthStore

/// `hearth export`: streams the JSON of a stopped database to stdout or a file.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export the JSON at --path to stdout or a file.",
        discussion: """
            Streams from one consistent snapshot in chunks of about 1 MiB. A stopped data directory \
            is opened directly; a running server's is read through its REST API (the server keeps \
            its address in the data directory while it runs; or give --url and --admin-secret).
            """
    )

    @OptionGroup var options: DataOptions

    @Option(help: "plain (as REST GET answers) or export (with .priority, never arrays).")
    var format: String = "plain"

    @Option(name: [.short, .long], help: "File to write (default stdout).")
    var output: String?

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let environment = Environment(ProcessInfo.processInfo.environment)
        let path = try options.dataPath()
        let renderFormat = try Self.renderFormat(format)
        let directory = options.dataDirectory(environment)
        _ = LoggingOptions.bootstrap(level: try logging.resolve(environment))

        if let server = try options.runningServer(environment) {
            let sink = try OutputSink(path: output)
            let progress = ProgressBar(label: "export", total: nil)
            do {
                try await RemoteTransfer.export(
                    path,
                    ns: options.ns,
                    format: renderFormat,
                    from: server,
                    into: sink,
                    progress: progress
                )
                if output == nil || output == "-" { try sink.write([UInt8(ascii: "\n")]) }
                try sink.finish()
            } catch {
                sink.abandon()
                throw error
            }
            progress.finish()
            return
        }
        // Read only: the lookup indexes of the namespaces' apps are left as they are.
        var configuration = StoreConfiguration()
        configuration.reconcilesLookups = false
        let store = try DataDirectory.open(directory, create: false, configuration: configuration)
        defer { store.close() }
        let namespace: NamespaceStore
        do {
            namespace = try store.namespace(options.ns)
        } catch {
            throw ValidationError("Invalid value '\(options.ns)' for '--ns': \(error)")
        }
        let sink = try OutputSink(path: output)
        let progress = ProgressBar(label: "export", total: nil)
        let counter = ByteCounter()
        do {
            try await namespace.exportJSON(at: path, format: renderFormat) { chunk in
                try sink.write(chunk)
                progress.update(counter.add(chunk.count))
            }
            if output == nil || output == "-" { try sink.write([UInt8(ascii: "\n")]) }
            try sink.finish()
        } catch let error as CLIError {
            sink.abandon()
            throw error
        } catch {
            sink.abandon()
            throw CLIError(.store, "Export failed: \(error)", cause: error)
        }
        progress.finish()
    }

    static func renderFormat(_ text: String) throws -> RenderFormat {
        switch text {
        case "plain": return .plain
        case "export": return .export
        default: throw ValidationError("Invalid value '\(text)' for '--format': expected 'plain' or 'export'.")
        }
    }
}
