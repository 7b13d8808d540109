import Foundation
import HearthCore
import HearthFunctions
import HearthServer
import Synchronization
import Testing

/// `AccountDeletionHandler`s run by `accounts:delete` before the account goes, in each of their
/// namespaces that exists; a failing one keeps the account.
@Suite struct AccountDeletionHandlerTests {
    /// Deletes `tags/<uid>` in its namespace; fails while `failing` is set.
    final class Untag: AccountDeletionHandler {
        let failing = Mutex(true)
        let seen = Mutex<[String]>([])

        func accountWillBeDeleted(uid: String, in database: CallableDatabase) async throws(CallableError) {
            seen.withLock { $0.append("\(database.namespace):\(uid)") }
            if failing.withLock({ $0 }) { throw CallableError(.unavailable, "the tag store is down") }
            try await database.commit([.delete(DataPath("tags", uid))])
        }
    }

    @Test func handlersRunBeforeTheAccountGoesAndAFailureKeepsIt() async throws {
        let handler = Untag()
        try await AccountsClient.withServer(prepare: { configuration in
            configuration.callables.add(handler, in: ["default", "other", "never-created"])
        }) { accounts in
            let answer = try await accounts.signUp("gone@example.com")
            let (uid, token) = (answer.string("localId"), answer.string("idToken"))
            try await accounts.server.put("/tags/\(uid)", "true")
            try await accounts.server.put("/tags/\(uid)", "true", ns: "other")
            // The handler fails: the account and its data stay; the request says so.
            let refused = try await accounts.call("delete", ["idToken": token])
            #expect(refused.status == 500)
            #expect(try await accounts.call("lookup", ["idToken": token]).status == 200)
            #expect(try await accounts.server.get("/tags/\(uid)") == "true")
            // It recovers: a retry runs it in every existing namespace, then deletes the account.
            handler.failing.withLock { $0 = false }
            #expect(try await accounts.call("delete", ["idToken": token]).status == 200)
            #expect(try await accounts.server.get("/tags/\(uid)") == "null")
            #expect(try await accounts.server.get("/tags/\(uid)", ns: "other") == "null")
            #expect(handler.seen.withLock { $0 } == ["default:\(uid)", "default:\(uid)", "other:\(uid)"])
            #expect(try await accounts.call("lookup", ["idToken": token]).status == 400)
        }
    }
}
