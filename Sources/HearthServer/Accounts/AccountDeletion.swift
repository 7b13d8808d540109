import HearthDatabase
import HearthFunctions

extension HearthServer {
    /// Runs every account-deletion handler of `callables` (`AccountDeletionHandler`) in its
    /// namespace, in registration order; a namespace that does not exist holds nothing of
    /// anyone and is skipped (and not created).
    static func accountDeletion(
        _ callables: Callables,
        database: Database,
        files: (any CallableFiles)?
    ) -> @Sendable (String) async throws -> Void {
        let handlers = callables.accountDeletionHandlers
        return { uid in
            for (handler, namespace) in handlers where database.isCreated(namespace) {
                let engine = try await database.engine(for: namespace)
                try await handler.accountWillBeDeleted(
                    uid: uid,
                    in: CallableDatabase(namespace: namespace, engine: engine),
                    files: files
                )
            }
        }
    }
}
