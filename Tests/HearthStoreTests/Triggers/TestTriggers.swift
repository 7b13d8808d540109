import HearthCore
import Synchronization

@testable import HearthStore

/// Counts the items of each list: `/counts/<list>` follows `/lists/<list>/items/*`.
struct ItemCounter: WriteTrigger {
    var pattern: String { "/lists/$list/items/$item" }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        let counter = DataPath(keys: [ChildKey("counts"), ChildKey(change.wildcards["list"]!)])
        switch (change.before, change.after) {
        case (nil, _?): return [.increment(counter, by: 1)]
        case (_?, nil): return [.increment(counter, by: -1)]
        default: return []
        }
    }
}

/// Records every change it is given; derives nothing.
final class RecordingTrigger: WriteTrigger, Sendable {
    struct Seen: Equatable {
        let path: String
        let wildcards: [String: String]
        let before: Node?
        let after: Node?
        let author: WriteAuthor
    }

    let pattern: String
    private let seen = Mutex<[Seen]>([])

    init(pattern: String) { self.pattern = pattern }

    var changes: [Seen] { seen.withLock { $0 } }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        let entry = Seen(
            path: change.path.description,
            wildcards: change.wildcards,
            before: change.before,
            after: change.after,
            author: change.author
        )
        seen.withLock { $0.append(entry) }
        return []
    }
}

/// Refuses any message whose text is "forbidden"; fails (a bug of its own) on text "broken".
struct Censor: WriteTrigger {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "an internal detail" }
    }

    var pattern: String { "/messages/$id" }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        let text = change.after?.child(ChildKey("text"))
        if text == .leaf(.string("forbidden"), priority: nil) { throw WriteRefusal("forbidden text") }
        if text == .leaf(.string("broken"), priority: nil) { throw Broken() }
        return [.set(DataPath(keys: [ChildKey("last")]), .leaf(.string(change.wildcards["id"]!), priority: nil))]
    }
}

/// Writes into its own pattern's locations: would count forever if its writes triggered.
struct Echo: WriteTrigger {
    var pattern: String { "/echo/$key" }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        [.increment(DataPath(keys: [ChildKey("echo"), ChildKey("n")]), by: 1)]
    }
}

/// Stamps a message with the value of `/config/stamp` as it was before the write.
struct Stamper: WriteTrigger {
    var pattern: String { "/stamped/$id" }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        guard change.after != nil else { return [] }
        let stamp = change.snapshot.node(at: DataPath(keys: [ChildKey("config"), ChildKey("stamp")]))
        return [.set(change.path.child(ChildKey("stamp")), stamp)]
    }
}

/// Keeps every commit it is handed; throws on those `failing` names (by sequence).
final class RecordingObserver: CommitObserver, Sendable {
    let name: String
    private let state = Mutex<(commits: [CommittedWrite], waiters: [(Int, CheckedContinuation<Void, Never>)])>(([], []))
    private let failing: Set<UInt64>

    init(name: String = "recorder", failing: Set<UInt64> = []) {
        self.name = name
        self.failing = failing
    }

    var commits: [CommittedWrite] { state.withLock { $0.commits } }

    func committed(_ commit: CommittedWrite, namespace: String) throws {
        if failing.contains(commit.sequence) { throw RecordingObserverFailure() }
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.commits.append(commit)
            let count = state.commits.count
            let ready = state.waiters.filter { $0.0 <= count }.map(\.1)
            state.waiters.removeAll { $0.0 <= count }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once `count` commits arrived.
    func waitFor(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.commits.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

struct RecordingObserverFailure: Error {}

extension WriteTriggers {
    static func with(_ triggers: [any WriteTrigger], observers: [any CommitObserver] = []) throws -> WriteTriggers {
        var all = WriteTriggers()
        for trigger in triggers { try all.add(trigger) }
        for observer in observers { try all.add(observer) }
        return all
    }
}

extension TemporaryStore {
    /// A store whose namespaces run `triggers` and `observers`.
    static func with(_ triggers: [any WriteTrigger], observers: [any CommitObserver] = []) throws -> TemporaryStore {
        try TemporaryStore(configuration: StoreConfiguration(triggers: .with(triggers, observers: observers)))
    }
}

/// Counts each write to `/fan/$id` in 20 counters (a list long enough for the writer to keep
/// its layout, `DerivedLayouts.minimumCount`); a written "priority" or "root" adds a path no
/// trigger may write (a priority) or that cannot go beside the write (the root).
struct WideFanout: WriteTrigger {
    var pattern: String { "/fan/$id" }

    func updates(for change: TriggerChange) throws -> [DerivedUpdate] {
        var updates = (0..<20).map {
            DerivedUpdate.increment(DataPath(keys: [ChildKey("counts"), ChildKey("k\($0)")]), by: 1)
        }
        switch change.after {
        case .leaf(.string("priority"), _)?:
            updates[7] = .set(
                DataPath(keys: [ChildKey("counts"), ChildKey("k7"), ChildKey(".priority")]),
                .leaf(.number(1), priority: nil)
            )
        case .leaf(.string("root"), _)?:
            updates[0] = .set(.root, .leaf(.number(1), priority: nil))
        default:
            break
        }
        return updates
    }
}
