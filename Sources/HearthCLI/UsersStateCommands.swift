import ArgumentParser
import Foundation

/// `hearth users disable USER`: refuses sign-ins and revokes every token.
struct UsersDisableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable",
        abstract: "Disable an account: sign-ins are refused and its tokens revoked."
    )

    @Argument(help: "uid or email of the account.")
    var user: String

    @OptionGroup var options: UsersOptions

    func run() async throws {
        let store = try options.open(create: false)
        defer { store.close() }
        do {
            let account = try UsersOptions.find(user, in: store)
            _ = try await store.setDisabled(uid: account.localId, true)
            FileHandle.standardOutput.write(Data("Disabled \(account.localId)\n".utf8))
        } catch {
            throw UsersOptions.failure(error, doing: "disable '\(user)'")
        }
    }
}

/// `hearth users enable USER`: allows sign-ins again (earlier tokens stay revoked).
struct UsersEnableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Enable a disabled account (tokens issued before it was disabled stay revoked)."
    )

    @Argument(help: "uid or email of the account.")
    var user: String

    @OptionGroup var options: UsersOptions

    func run() async throws {
        let store = try options.open(create: false)
        defer { store.close() }
        do {
            let account = try UsersOptions.find(user, in: store)
            _ = try await store.setDisabled(uid: account.localId, false)
            FileHandle.standardOutput.write(Data("Enabled \(account.localId)\n".utf8))
        } catch {
            throw UsersOptions.failure(error, doing: "enable '\(user)'")
        }
    }
}

/// `hearth users delete USER`: removes the account; its tokens stay revoked.
struct UsersDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an account (its data in the database is left alone)."
    )

    @Argument(help: "uid or email of the account.")
    var user: String

    @OptionGroup var options: UsersOptions

    func run() async throws {
        let store = try options.open(create: false)
        defer { store.close() }
        do {
            let account = try UsersOptions.find(user, in: store)
            try await store.deleteAccount(uid: account.localId)
            FileHandle.standardOutput.write(Data("Deleted \(account.localId)\n".utf8))
        } catch {
            throw UsersOptions.failure(error, doing: "delete '\(user)'")
        }
    }
}
