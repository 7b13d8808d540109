import ArgumentParser

/// `hearth users set-password USER`: replaces the password and revokes earlier tokens.
struct UsersSetPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-password",
        abstract: "Set an account's password (earlier tokens are revoked)."
    )

    @Argument(help: "uid or email of the account.")
    var user: String

    @Option(help: "New password (at least 6 characters); read from stdin when not given.")
    var password: String?

    @OptionGroup var options: UsersOptions

    func run() async throws {
        let password = try UsersOptions.password(password)
        try await options.change(user, doing: "set the password of", done: "Password set for") { store, uid in
            _ = try await store.setPassword(uid: uid, password)
        }
    }
}
