import ArgumentParser
import Foundation
import NIOCore

/// `hearth backup --output FILE`: a backup of a running server (every namespace at one moment,
/// the accounts, the token key, the storage objects), streamed to FILE while the server goes on serving writes.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up a running server into FILE (restore it with 'hearth restore').",
        discussion: """
            Asks the server for one consistent snapshot of every database, the accounts, the token \
            key and the storage objects (GET /.backup, admin credential; open resumable uploads are \
            left out) and streams it into FILE, which appears only \
            when complete. The server is found through its data directory (--data; it keeps its \
            address there while it runs), or given with --url and --admin-secret. The file holds \
            password hashes and the token key: keep it as safe as the data directory.
            """
    )

    @Option(name: [.short, .long], help: "The backup file to write.")
    var output: String

    @Option(help: "The running server's data directory (env HEARTH_DATA; default .hearth).")
    var data: String?

    @Option(help: "The server's URL, http://HOST:PORT (env HEARTH_URL), instead of finding it via --data.")
    var url: String?

    @Option(help: "The server's admin secret (env HEARTH_ADMIN_SECRET), with --url.")
    var adminSecret: String?

    func run() async throws {
        let environment = Environment(ProcessInfo.processInfo.environment)
        let directory = DataDirectory.path(data, environment)
        let server = try RunningServerAddress.find(
            url: url,
            adminSecret: adminSecret,
            dataDirectory: directory,
            environment: environment
        )
        guard output != "-" else { throw ValidationError("Give '--output' a file: a backup is not written to stdout.") }
        let sink = try OutputSink(path: output, permissions: 0o600)
        let progress = ProgressBar(label: "backup", total: nil)
        let counter = ByteCounter()
        let started = ContinuousClock.now
        do {
            try await ServerRequest(server: server, method: .GET, target: "/.backup").send { buffer in
                try sink.write(Array(buffer.readableBytesView))
                progress.update(counter.add(buffer.readableBytes))
            }
            try sink.finish()
        } catch {
            sink.abandon()
            throw error
        }
        progress.finish()
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        let megabytes = Double(counter.value) / 1_000_000
        ProgressBar.writeStderr(
            "Backed up \(ProgressBar.megabytes(counter.value)) MB in \(String(format: "%.1f", seconds)) s "
                + "(\(String(format: "%.1f", megabytes / max(seconds, 0.001))) MB/s) into \(output)\n"
        )
    }
}
