import HearthCore
import HearthFuzzSupport
import HearthRules

/// A storage rules file (`rules/storage.rules`) to `StorageRules.compile`: it compiles or reports
/// at least one diagnostic at a real line; what compiles decides a spread of requests (each
/// method, signed in and out, with and without a resource, over a small database) without
/// crashing, and deciding twice gives the same answer.
enum StorageRulesFuzz {
    /// `members/c1/alice: true` and a user profile, for `database.get/exists`.
    static let database = StorageRulesTree(
        root: try? TreeParser.parse(
            #"{"members": {"c1": {"alice": true}}, "users": {"alice": {"name": "Alice", "age": 30}}}"#,
            at: .root
        ).node
    )
    static let requests: [StorageRuleRequest] = {
        let object = StorageRuleObject(
            name: "users/alice/a.png",
            bucket: "hearth.appspot.com",
            size: 1000,
            timeCreated: 1_700_000_000_000,
            updated: 1_700_000_000_000,
            contentType: "image/png",
            metadata: ["k": "v"]
        )
        var requests: [StorageRuleRequest] = []
        for method in StorageMethod.allCases {
            for auth in [RuleAuth(uid: "alice", token: ["email": "a@example.com"]), nil] {
                for name in ["users/alice/a.png", "chats/c1/x/y.mp4", "", "a"] {
                    requests.append(
                        StorageRuleRequest(
                            method: method,
                            bucket: "hearth.appspot.com",
                            name: name,
                            auth: auth,
                            resource: method == .create ? nil : object,
                            newResource: [.create, .update].contains(method) ? object : nil,
                            now: 1_700_000_000_000
                        )
                    )
                }
            }
        }
        return requests
    }()

    static let target = FuzzTarget(name: "storage-rules") { input in
        switch StorageRules.compile(source: input.text) {
        case .success(let rules):
            for request in requests {
                let first = rules.decide(request, database: database)
                let second = rules.decide(request, database: database, recording: true)
                require(first.allowed == second.allowed, "recording the evaluation changed the decision")
                require(first.trace.count == second.trace.count, "recording the evaluation changed the trace")
                require(!first.allowed || first.decidedBy != nil, "allowed without a deciding rule")
            }
        case .failure(let diagnostics):
            require(!diagnostics.diagnostics.isEmpty, "a refused file without a diagnostic")
            for diagnostic in diagnostics.diagnostics {
                require(
                    diagnostic.position.line >= 1 && diagnostic.position.column >= 1,
                    "diagnostic at \(diagnostic.position)"
                )
            }
        }
    }
}
