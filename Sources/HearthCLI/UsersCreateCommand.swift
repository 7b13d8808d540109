import ArgumentParser
import Foundation

/// `hearth users create EMAIL`: a new email/password account; prints its uid.
struct UsersCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an email/password account and print its uid."
    )

    @Argument(help: "Email address of the account.")
    var email: String

    @Option(help: "Password (at least 6 characters); read from stdin when not given.")
    var password: String?

    @Option(help: "Display name.")
    var displayName: String?

    @OptionGroup var options: UsersOptions

    func run() async throws {
        let password = try UsersOptions.password(password)
        let store = try options.open(create: true)
        defer { store.close() }
        do {
            let account = try await store.createAccount(email: email, password: password, displayName: displayName)
            FileHandle.standardOutput.write(Data((account.localId + "\n").utf8))
        } catch {
            throw UsersOptions.failure(error, doing: "create '\(email)'")
        }
    }
}
