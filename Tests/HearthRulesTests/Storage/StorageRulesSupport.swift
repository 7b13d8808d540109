import HearthCore

@testable import HearthRules

/// Compiles storage rules or fails the test with the diagnostics.
func storageRules(_ text: String) throws -> StorageRules {
    switch StorageRules.compile(source: text) {
    case .success(let rules): return rules
    case .failure(let diagnostics): throw diagnostics
    }
}

/// The diagnostics of rules that must not compile (empty when they do).
func storageDiagnostics(_ text: String) -> [RulesDiagnostic] {
    if case .failure(let diagnostics) = StorageRules.compile(source: text) { return diagnostics.diagnostics }
    return []
}

/// Rules whose only `allow` is `allow <method>: if <condition>` at `/b/{bucket}/o/{path=**}`,
/// with `functions` declared in the service.
func conditionRules(_ condition: String, method: String = "read", functions: String = "") throws -> StorageRules {
    try storageRules(
        """
        rules_version = '2';
        service firebase.storage {
          \(functions)
          match /b/{bucket}/o {
            match /{path=**} {
              allow \(method): if \(condition);
            }
          }
        }
        """
    )
}

/// A read of `name` by `uid` (nil: signed out).
func read(
    _ name: String,
    as uid: String? = "alice",
    bucket: String = "hearth.appspot.com",
    resource: StorageRuleObject? = nil,
    now: Double = 1_700_000_000_000
) -> StorageRuleRequest {
    StorageRuleRequest(
        method: .get,
        bucket: bucket,
        name: name,
        auth: uid.map { RuleAuth(uid: $0, token: ["email": "a@example.com", "user_id": .string($0)]) },
        resource: resource,
        now: now
    )
}

/// An upload creating `name` with `size` bytes of `contentType`.
func create(
    _ name: String,
    as uid: String? = "alice",
    size: Int64 = 1000,
    contentType: String? = "image/png",
    metadata: [String: String] = [:]
) -> StorageRuleRequest {
    StorageRuleRequest(
        method: .create,
        bucket: "hearth.appspot.com",
        name: name,
        auth: uid.map { RuleAuth(uid: $0) },
        newResource: StorageRuleObject(
            name: name,
            bucket: "hearth.appspot.com",
            size: size,
            timeCreated: 1_700_000_000_000,
            updated: 1_700_000_000_000,
            contentType: contentType,
            metadata: metadata
        ),
        now: 1_700_000_000_000
    )
}

/// Whether `condition` alone (in `conditionRules`) allows a read of `a/b`.
func holds(_ condition: String, functions: String = "") throws -> Bool {
    try conditionRules(condition, functions: functions).decide(read("a/b")).allowed
}
