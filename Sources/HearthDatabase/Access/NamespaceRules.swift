import Foundation
public import HearthCore
public import HearthRules
public import HearthStore
import Synchronization

/// The rules in force in one namespace and the checks made with them. Until a program is
/// installed, only the admin reads or writes.
public final class NamespaceRules: Sendable {
    private let program = Mutex<RuleProgram?>(nil)
    private let clock: ServerClock

    /// - Parameter clock: the rules' `now` for reads and listens (a write's comes with its
    ///   proposal, from the store's clock).
    init(clock: ServerClock = .system) {
        self.clock = clock
    }

    /// The program in force, or nil before the first install.
    public var current: RuleProgram? { program.withLock { $0 } }

    func install(_ newProgram: RuleProgram) {
        program.withLock { $0 = newProgram }
    }

    /// Installs `newProgram` unless a program is already in force (a newer one may have been
    /// installed by a reload meanwhile). Returns whether it was installed.
    public func installIfAbsent(_ newProgram: RuleProgram) -> Bool {
        program.withLock { current in
            guard current == nil else { return false }
            current = newProgram
            return true
        }
    }

    /// Milliseconds since 1970: the rules' `now`.
    func now() -> Double {
        clock.now()
    }

    /// Whether `caller` may read `path` (through `query`) in the snapshot of `reader`.
    public func canRead(_ caller: Caller, path: DataPath, query: Query?, reader: NamespaceReader) -> Bool {
        canRead(caller, path: path, query: query, reader: reader, recorder: nil)
    }

    /// `canRead`, noting in `recorder` the paths the decision read.
    func canRead(
        _ caller: Caller,
        path: DataPath,
        query: Query?,
        reader: NamespaceReader,
        recorder: ReadLog?
    ) -> Bool {
        if caller.bypassesRules { return true }
        guard let program = current else { return false }
        return program.canRead(
            path: path,
            auth: caller.auth,
            root: StoreRuleSource(reader, recorder: recorder),
            now: now(),
            query: query.map(RuleQuery.init)
        ).allowed
    }

    /// The store-side check of `caller`'s writes (nil for the admin: nothing to check).
    public func writeAuthorizer(for caller: Caller) -> WriteAuthorizer? {
        if caller.bypassesRules { return nil }
        return { [self] proposal in self.canWrite(caller, proposal) }
    }

    /// Whether `caller` may make the proposed write: `.write` cascade on every written path,
    /// `.validate` on the merged result (a multi-path update is judged as one write).
    func canWrite(_ caller: Caller, _ proposal: WriteProposal) -> Bool {
        guard let program = current else { return false }
        let root = StoreRuleSource(proposal.reader, recorder: proposal.reads)
        var writes: [(path: DataPath, node: Node?)] = []
        writes.reserveCapacity(proposal.changes.count)
        for change in proposal.changes {
            if change.path.last?.string == ".priority", let owner = change.path.parent {
                // A priority write: the owner's node, its priority replaced.
                writes.append((owner, root.node(at: owner).map { $0.withPriority(change.node) }))
            } else {
                writes.append(change)
            }
        }
        let allowed = program.canWrite(
            path: proposal.location.last?.string == ".priority" ? proposal.location.parent! : proposal.location,
            auth: caller.auth,
            root: root,
            newRoot: RuleOverlaySource(base: root, writes: writes),
            now: proposal.now,
            changedPaths: writes.map(\.path)
        ).allowed
        // Every read went through `root` (the overlay reads its base there).
        proposal.reads?.isComplete = true
        return allowed
    }
}

extension Node {
    /// The node with its priority replaced by a number or string leaf (anything else clears it).
    func withPriority(_ priorityNode: Node?) -> Node {
        let priority: Priority?
        switch priorityNode {
        case .leaf(.number(let n), _)?: priority = .number(n)
        case .leaf(.string(let s), _)?: priority = .string(s)
        default: priority = nil
        }
        switch self {
        case .leaf(let value, _): return .leaf(value, priority: priority)
        case .children(let children, _): return .children(children, priority: priority)
        }
    }
}
