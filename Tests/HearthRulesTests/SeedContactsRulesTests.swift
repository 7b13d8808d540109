import Foundation
import HearthCore
import Testing

@testable import HearthRules

/// The seed's contacts (`seed/fireside.json`) are imported by the admin, but each entry is one
/// its owner could have written under the shipped rules, at the time of its `addedAt`.
struct SeedContactsRulesTests {
    @Test func seedContactsAreValidUnderTheShippedRules() throws {
        let program = try RulesDocument.compiled(source: chatRules)
        let seedURL = shippedRulesDirectory.deletingLastPathComponent().appendingPathComponent("seed/fireside.json")
        let seed = try TreeParser.parse(String(contentsOf: seedURL, encoding: .utf8), at: .root).node
        let contacts = DataPath(keys: [ChildKey("contacts")])
        guard case .children(let lists, _)? = seed?.descendant(contacts) else {
            Issue.record("the seed has no contacts")
            return
        }
        var checked = 0
        for (owner, list) in zip(lists.keys, lists.nodes) {
            guard case .children(let entries, _) = list else { continue }
            for (contact, entry) in zip(entries.keys, entries.nodes) {
                let target = contacts.child(owner).child(contact)
                guard case .leaf(.number(let addedAt), _)? = entry.child(ChildKey("addedAt")) else {
                    Issue.record("\(target) has no addedAt")
                    continue
                }
                let before = RuleMemorySource(root: NodeEditing.setting(seed, at: target, to: nil))
                let decision = program.canWrite(
                    path: target,
                    auth: RuleAuth(uid: owner.string),
                    root: before,
                    newRoot: RuleOverlaySource(base: before, writes: [(target, entry)]),
                    now: addedAt,
                    trace: true
                )
                #expect(decision.allowed, "contact \(target): \(decision)")
                checked += 1
            }
        }
        #expect(checked >= 20)
    }
}
