import ArgumentParser

/// `hearth users ...`: administer the accounts of a stopped server's data directory.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List, create, disable, enable and delete accounts, or set a password.",
        discussion: """
            Works on the data directory of a stopped server (--data, env HEARTH_DATA; default .hearth). \
            While a server runs, use its Firebase Auth REST API with the admin secret as bearer token \
            (accounts:update with localId and disableUser or password, accounts:delete with localId). \
            A user is named by uid or by email.
            """,
        subcommands: [
            UsersListCommand.self, UsersCreateCommand.self, UsersDisableCommand.self, UsersEnableCommand.self,
            UsersDeleteCommand.self, UsersSetPasswordCommand.self,
        ]
    )
}
