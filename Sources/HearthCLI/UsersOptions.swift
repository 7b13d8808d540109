import ArgumentParser
import Foundation
import HearthAccounts
import Logging

/// `--data` and opening the accounts for the `users` subcommands.
struct UsersOptions: ParsableArguments {
    @Option(help: "Data directory (env HEARTH_DATA; default .hearth).")
    var data: String?

    @OptionGroup var logging: LoggingOptions

    /// The data directory: the flag, else `HEARTH_DATA`, else `.hearth`.
    func dataDirectory(_ environment: Environment) -> String {
        DataDirectory.path(data, environment)
    }

    /// Opens the accounts of the data directory; `create` false refuses a missing directory.
    /// `forWriting` refuses a cluster node's copy: its changes would never reach the cluster.
    /// - Throws: `CLIError.dataDirectoryInUse` while a server runs on it.
    func open(create: Bool, forWriting: Bool = true) throws -> AccountsStore {
        let environment = Environment(ProcessInfo.processInfo.environment)
        let directory = dataDirectory(environment)
        var logger = LoggingOptions.bootstrap(level: try logging.resolve(environment))
        logger[metadataKey: "hearth.command"] = "users"
        try DataDirectory.checkIsDirectory(directory, mayBeMissing: create)
        let accounts = AccountsStore.directory(inDataDirectory: directory)
        if DataDirectory.isLockedByAnotherProcess(accounts + "/db") { throw Self.inUse(directory) }
        let store: AccountsStore
        do {
            store = try AccountsStore(directory: accounts, jwtSecret: nil, logger: logger)
        } catch  where error.code == .databaseInUse {
            throw Self.inUse(directory)
        } catch {
            throw CLIError(.store, "Could not open the accounts of '\(directory)': \(error.detail ?? error.message)")
        }
        if forWriting, store.isClusterCopy {
            store.close()
            throw CLIError(
                .store,
                "The accounts of '\(directory)' are a copy of a cluster's (hearth serve --cluster): a change here "
                    + "would never reach the other nodes. Change them through any running node's REST API with the "
                    + "admin secret (POST /identitytoolkit.googleapis.com/v1/accounts:update, :signUp, :delete)."
            )
        }
        return store
    }

    static func inUse(_ directory: String) -> CLIError {
        CLIError(
            .dataDirectoryInUse,
            "The data directory '\(directory)' is in use by a running Hearth server. Stop the server first, "
                + "or use its REST API with the admin secret: POST /identitytoolkit.googleapis.com/v1/accounts:update "
                + "with 'Authorization: Bearer <admin secret>' and {\"localId\": ..., \"disableUser\": true} "
                + "(or \"password\"), or accounts:delete with {\"localId\": ...}."
        )
    }

    /// Opens the accounts, finds `user`, applies `change` to its uid and prints `"<done> <uid>"`;
    /// a failure names what was being done (`"disable 'ada@example.com'"`).
    func change(
        _ user: String,
        doing what: String,
        done: String,
        _ change: (AccountsStore, _ uid: String) async throws -> Void
    ) async throws {
        let store = try open(create: false)
        defer { store.close() }
        do {
            let account = try Self.find(user, in: store)
            try await change(store, account.localId)
            FileHandle.standardOutput.write(Data("\(done) \(account.localId)\n".utf8))
        } catch {
            throw Self.failure(error, doing: "\(what) '\(user)'")
        }
    }

    /// The account named by `user`: an email when it contains '@', else a uid.
    static func find(_ user: String, in store: AccountsStore) throws -> AccountRecord {
        let found = user.contains("@") ? store.account(email: user) : store.account(uid: user)
        guard let found else {
            throw CLIError(.store, "There is no account '\(user)': name a user by uid or email ('hearth users list').")
        }
        return found
    }

    /// `flag`, else a line from stdin (prompted without echo on a terminal).
    static func password(_ flag: String?) throws -> String {
        if let flag { return flag }
        let line: String?
        if isatty(STDIN_FILENO) != 0, let typed = getpass("Password: ") {
            line = String(cString: typed)
        } else {
            line = readLine(strippingNewline: true)
        }
        guard let line, !line.isEmpty else {
            throw ValidationError("No password: give '--password' or type it on stdin.")
        }
        return line
    }

    /// An accounts failure as a CLI error.
    static func failure(_ error: any Error, doing what: String) -> CLIError {
        if let error = error as? CLIError { return error }
        guard let error = error as? AccountsError else {
            return CLIError(.store, "Could not \(what): \(error)", cause: error)
        }
        let reason: String
        switch error.code {
        case .emailExists: reason = "an account with this email exists"
        case .invalidEmail: reason = "the email is not valid"
        case .weakPassword, .missingPassword: reason = "the password must have at least 6 characters"
        case .userNotFound: reason = "there is no such account"
        default: reason = error.detail ?? error.message
        }
        return CLIError(.store, "Could not \(what): \(reason).", cause: error)
    }
}
