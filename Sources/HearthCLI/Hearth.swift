import ArgumentParser

/// The `hearth` command: serve a database, or move JSON in and out of a data directory.
@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hosted server compatible with the Firebase Realtime Database.",
        discussion: """
            Every option of `serve` can also be set with an environment variable (HEARTH_PORT, ...); \
            a flag wins over the variable, the variable over the default.
            """,
        subcommands: [
            ServeCommand.self, ImportCommand.self, ExportCommand.self, RulesCommand.self, UsersCommand.self,
            ChatCommand.self, BackupCommand.self, RestoreCommand.self, DoctorCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}
