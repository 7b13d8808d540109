import HearthDatabase
import HearthFunctions

extension HearthServer {
    /// Runs every account-deletion handler of `callables` (`AccountDeletionHandler`) in its
    /// namespace, in registration order; a namespace that does not exist holds nothing of
    /// anyone and is skipped (and not created). In a cluster, a handler whose namespace another
    /// node owns runs there (`ClusterRouting.deleteAccountData`).
    static func accountDeletion(
        _ callables: Callables,
        database: Database,
        files: (any CallableFiles)?,
        cluster: ClusterRouting?
    ) -> @Sendable (String) async throws -> Void {
        let handlers = callables.accountDeletionHandlers
        let runHere = accountDeletionHandler(callables, database: database, files: files)
        return { uid in
            for (index, (_, namespace)) in handlers.enumerated() {
                if let cluster {
                    guard try await cluster.membership.directory.exists(namespace: namespace) else { continue }
                    if try await cluster.deleteAccountDataElsewhere(handler: index, namespace: namespace, uid: uid) {
                        continue
                    }
                } else if !database.isCreated(namespace) {
                    continue
                }
                try await runHere(index, uid)
            }
        }
    }

    /// Runs handler `index` of `callables.accountDeletionHandlers` for `uid` on this node.
    static func accountDeletionHandler(
        _ callables: Callables,
        database: Database,
        files: (any CallableFiles)?
    ) -> @Sendable (_ index: Int, _ uid: String) async throws -> Void {
        let handlers = callables.accountDeletionHandlers
        return { index, uid in
            let (handler, namespace) = handlers[index]
            let engine = try await database.engine(for: namespace)
            try await handler.accountWillBeDeleted(
                uid: uid,
                in: CallableDatabase(namespace: namespace, engine: engine),
                files: files
            )
        }
    }
}
