import ArgumentParser

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
        try await options.change(user, doing: "disable", done: "Disabled") { store, uid in
            _ = try await store.setDisabled(uid: uid, true)
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
        try await options.change(user, doing: "enable", done: "Enabled") { store, uid in
            _ = try await store.setDisabled(uid: uid, false)
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
        try await options.change(user, doing: "delete", done: "Deleted") { store, uid in
            try await store.deleteAccount(uid: uid)
        }
    }
}
