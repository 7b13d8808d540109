import HearthAccounts
import Logging

/// Opens the accounts store of a server's data directory.
enum AccountsBootstrap {
    static func open(_ configuration: HearthServerConfiguration, logger: Logger) throws -> AccountsStore {
        var settings = configuration.accounts
        if configuration.emulator { settings.emailEnumerationProtection = false }
        let directory = AccountsStore.directory(inDataDirectory: configuration.dataDirectory)
        do {
            return try AccountsStore(
                directory: directory,
                jwtSecret: configuration.jwtSecret,
                emulator: configuration.emulator,
                configuration: settings,
                logger: logger
            )
        } catch  where error.code == .databaseInUse {
            throw HearthServerError(.dataDirectoryInUse, error.message)
        } catch {
            // The cause (a damaged or read-only store says what to do), not Firebase's code.
            throw HearthServerError(error.detail ?? error.message)
        }
    }
}
