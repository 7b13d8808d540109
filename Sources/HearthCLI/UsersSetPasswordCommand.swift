import ArgumentParser
import Foundation

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
        let store = try options.open(create: false)
        defer { store.close() }
        do {
            let account = try UsersOptions.find(user, in: store)
            _ = try await store.setPassword(uid: account.localId, password)
            FileHandle.standardOutput.write(Data("Password set for \(account.localId)\n".utf8))
        } catch {
            throw UsersOptions.failure(error, doing: "set the password of '\(user)'")
        }
    }
}
