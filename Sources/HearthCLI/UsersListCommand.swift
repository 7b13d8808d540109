import ArgumentParser
import Foundation
import HearthAccounts

/// `hearth users list`: one line per account.
struct UsersListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the accounts: uid, email, status, creation and last sign-in time (UTC)."
    )

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    @OptionGroup var options: UsersOptions

    func run() async throws {
        let store = try options.open(create: false, forWriting: false)
        defer { store.close() }
        var output = ""
        let accounts = store.allAccounts()
        if json {
            for account in accounts { output += Self.jsonLine(account) + "\n" }
        } else {
            output += "UID\tEMAIL\tSTATUS\tCREATED\tLAST SIGN-IN\n"
            for account in accounts {
                let fields = [
                    account.localId, account.email ?? "(anonymous)", account.disabled ? "disabled" : "enabled",
                    Self.time(account.createdAt), account.lastLoginAt.map(Self.time) ?? "-",
                ]
                output += fields.joined(separator: "\t") + "\n"
            }
        }
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    static func time(_ milliseconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    static func jsonLine(_ account: AccountRecord) -> String {
        var object: [String: Any] = [
            "uid": account.localId, "disabled": account.disabled, "emailVerified": account.emailVerified,
            "createdAt": time(account.createdAt),
        ]
        if let email = account.email { object["email"] = email }
        if let name = account.displayName { object["displayName"] = name }
        if let login = account.lastLoginAt { object["lastSignInAt"] = time(login) }
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
