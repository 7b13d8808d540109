import Foundation
import HearthTestSupport
import Logging
import Synchronization
import Testing

@testable import HearthAccounts

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let seconds = Mutex<Double>(1_750_000_000.25)
    var now: Double { seconds.withLock { $0 } }
    func advance(_ delta: Double) { seconds.withLock { $0 += delta } }
}

/// An accounts store over a fresh temporary directory (removed afterwards), with cheap
/// scrypt parameters unless a test asks for the real ones.
struct TemporaryAccounts {
    static let secret = "accounts-test-secret"

    let directory: String
    let clock: TestClock

    static func with(
        configure: (inout AccountsConfiguration) -> Void = { _ in },
        _ body: (AccountsStore, TemporaryAccounts) async throws -> Void
    ) async throws {
        let scratch = try TemporaryDirectory(prefix: "hearth-accounts")
        defer { scratch.remove() }
        let directory = scratch.path
        let temporary = TemporaryAccounts(directory: directory, clock: TestClock())
        let store = try temporary.open(configure: configure)
        do {
            try await body(store, temporary)
        } catch {
            store.close()
            throw error
        }
        store.close()
    }

    func open(configure: (inout AccountsConfiguration) -> Void = { _ in }) throws -> AccountsStore {
        let clock = self.clock
        var configuration = AccountsConfiguration(scrypt: .testing, hashingThreads: 2, now: { clock.now })
        configure(&configuration)
        var logger = Logger(label: "hearth.accounts.test")
        logger.logLevel = .critical
        return try AccountsStore(
            directory: directory,
            jwtSecret: Self.secret,
            configuration: configuration,
            logger: logger
        )
    }
}

/// Runs `body`, expecting it to throw an `AccountsError` with `code`.
func expectAccountsError<T>(
    _ code: AccountsError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected \(code), got success", sourceLocation: sourceLocation)
    } catch let error as AccountsError {
        #expect(error.code == code, "got \(error.message)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// The payload of a JWT as a dictionary.
func claims(of token: String) -> [String: Any] {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let bytes = Base64URL.decode(parts[1]) else { return [:] }
    return ((try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]) ?? [:]
}
