import Foundation
import HearthCore
import HearthDatabase
import HearthRules
import HearthStorage

/// Who may do what with files: the admin anything; everyone else what the storage rules in
/// force allow (`StorageRulesCatalog`), and without a rules file nothing. Rules that read the
/// database (`database.get/exists`) read one snapshot of the bucket's namespace per decision.
struct StorageAccess: Sendable {
    let rules: StorageRulesCatalog
    let database: Database
    let clock: ServerClock
    /// The namespace `database.get/exists` read (the contract: the default database).
    let namespace: String
    /// `<project-id>.appspot.com`.
    let defaultBucket: String

    /// The judge of one request: its caller and the rules in force when it began.
    func judge(_ caller: Credential) -> StorageJudge {
        StorageJudge(caller: caller, rules: caller == .admin ? nil : rules.rules, now: clock.now())
    }

    /// Runs `body` with what the judge's rules read of the database: inside a read of the
    /// namespace when they read it, else on the storage queue.
    func run<T: Sendable>(
        _ judge: StorageJudge,
        _ body: @escaping @Sendable ((any StorageRulesDatabase)?) throws -> T
    ) async throws -> T {
        guard judge.rules?.usesDatabase == true else { return try await StorageEndpoint.run { try body(nil) } }
        guard database.isCreated(namespace) else {
            return try await StorageEndpoint.run { try body(NoDatabase()) }
        }
        let engine = try await database.engine(for: namespace)
        return try await engine.readAsServer { snapshot in try body(SnapshotDatabase(snapshot: snapshot)) }
    }

    /// `run(_:_:)` for a change deciding one of `methods` on `name` in `bucket`: inside a read of
    /// the namespace only when a condition that may decide it reads the database (an avatar upload
    /// under rules that read it only for chats' files takes no snapshot).
    func run<T: Sendable>(
        _ judge: StorageJudge,
        deciding methods: [StorageMethod],
        bucket: BucketName,
        name: String,
        _ body: @escaping @Sendable ((any StorageRulesDatabase)?) throws -> T
    ) async throws -> T {
        guard judge.rules?.readsDatabase(methods, bucket: bucket.value, name: name) == true else {
            return try await StorageEndpoint.run { try body(nil) }
        }
        return try await run(judge, body)
    }

    /// Decides without changing anything (reads, listings): on the caller's task when the rules
    /// read no database for it (a decision is pure computation), else inside a read of the
    /// namespace.
    func require(
        _ judge: StorageJudge,
        _ method: StorageMethod,
        bucket: BucketName,
        name: String,
        existing: ObjectMetadata? = nil,
        proposed: ObjectMetadata? = nil
    ) async throws {
        guard !judge.isAdmin else { return }
        guard judge.rules?.readsDatabase([method], bucket: bucket.value, name: name) == true else {
            return try judge.require(
                method,
                bucket: bucket,
                name: name,
                existing: existing,
                proposed: proposed,
                database: nil
            )
        }
        try await run(judge) { database in
            try judge.require(
                method,
                bucket: bucket,
                name: name,
                existing: existing,
                proposed: proposed,
                database: database
            )
        }
    }
}

/// One request's caller and rules.
struct StorageJudge: Sendable {
    let caller: Credential
    /// The rules in force (nil for the admin, or when there is no rules file).
    let rules: StorageRules?
    /// `request.time`, milliseconds since 1970.
    let now: Double

    var isAdmin: Bool { caller == .admin }

    /// Throws `StorageError` `.forbidden` unless the caller may do `method`.
    func require(
        _ method: StorageMethod,
        bucket: BucketName,
        name: String,
        existing: ObjectMetadata?,
        proposed: ObjectMetadata?,
        database: (any StorageRulesDatabase)?
    ) throws(StorageError) {
        if isAdmin { return }
        guard let rules else {
            throw StorageError(
                .forbidden,
                "Permission denied: this server has no storage rules (rules/storage.rules), so only the admin reads or writes files."
            )
        }
        let request = StorageRuleRequest(
            method: method,
            bucket: bucket.value,
            name: name,
            auth: caller.caller.auth,
            resource: existing.map(Self.object),
            newResource: proposed.map(Self.object),
            now: now
        )
        guard rules.decide(request, database: database).allowed else {
            throw StorageError(
                .forbidden,
                "Permission denied: the storage rules do not allow \(method.rawValue) on '\(name)'."
            )
        }
    }

    /// The admission of a change (`ObjectStore.finish`, `update`, `delete`): create when there
    /// is no object, update when there is one, delete when the change removes it.
    func admission(database: (any StorageRulesDatabase)?) -> ObjectStore.Admission? {
        guard !isAdmin else { return nil }
        return { (existing: ObjectMetadata?, proposed: ObjectMetadata?) throws(StorageError) in
            let method: StorageMethod = proposed == nil ? .delete : (existing == nil ? .create : .update)
            let name = proposed?.name ?? existing?.name ?? ""
            let bucket = try BucketName(proposed?.bucket ?? existing?.bucket ?? "")
            try require(method, bucket: bucket, name: name, existing: existing, proposed: proposed, database: database)
        }
    }

    /// An object as the rules see it.
    static func object(_ object: ObjectMetadata) -> StorageRuleObject {
        let resource = object.firebaseResource
        var result = StorageRuleObject(
            name: object.name,
            bucket: object.bucket,
            generation: Int64(object.generation) ?? 0,
            metageneration: Int64(object.metageneration),
            size: Int64(clamping: object.size),
            timeCreated: object.timeCreated,
            updated: object.updated,
            md5Hash: object.md5Hash,
            crc32c: object.crc32c,
            etag: resource.etag,
            contentType: object.contentType ?? "application/octet-stream",
            metadata: object.metadata
        )
        result.cacheControl = object.cacheControl
        result.contentDisposition = object.contentDisposition
        result.contentEncoding = object.contentEncoding
        result.contentLanguage = object.contentLanguage
        return result
    }
}

/// `database.get/exists` over a snapshot of a namespace.
private struct SnapshotDatabase: StorageRulesDatabase {
    let snapshot: NamespaceSnapshot

    func node(at path: DataPath) -> Node? { snapshot.node(at: path) }
}

/// A namespace never written: everything reads as absent.
private struct NoDatabase: StorageRulesDatabase {
    func node(at path: DataPath) -> Node? { nil }
}
