import Foundation
import HearthCore
import HearthStore
import HearthTestSupport
import Logging
import Synchronization
import Testing

@testable import HearthDatabase

/// A clustered namespace's round is in LevelDB while its append is in flight, so a listen's
/// initial read may hold a write whose commit is announced only after the listen is active (its
/// first data waits for the append, not for the announcement). The listener shows the write
/// from its initial data and gets no push for it: one push more would be a duplicate event
/// (found by the cluster's history checker, `ClusterHistoryTests`).
@Suite struct ListenDuringAppendTests {
    /// A changelog whose appends wait until released.
    final class HeldChangelog: Sendable {
        private let held = Mutex<[ReplicationSink.Completion]>([])
        let holding = Atomic<Bool>(false)

        var sink: ReplicationSink {
            ReplicationSink(epoch: 1) { _, _, completion in
                guard self.holding.load(ordering: .relaxed) else { return completion(nil) }
                self.held.withLock { $0.append(completion) }
            }
        }

        var heldCount: Int { held.withLock { $0.count } }

        func release() {
            holding.store(false, ordering: .relaxed)
            let completions = held.withLock { held in
                defer { held = [] }
                return held
            }
            for completion in completions { completion(nil) }
        }
    }

    @Test func aListenWhoseReadSawAWriteInItsAppendGetsNoPushForIt() async throws {
        let directory = try TemporaryDirectory(prefix: "hearth-db")
        defer { directory.remove() }
        let changelog = HeldChangelog()
        var configuration = StoreConfiguration()
        configuration.replication = { name in name == "chat" ? changelog.sink : nil }
        let store = try Store.open(
            directory: directory.path,
            configuration: configuration,
            clock: { 1_700_000_000_000 }
        )
        defer { store.close() }
        let database = Database(
            store: store,
            rulesFiles: RulesFiles(defaultRulesFile: directory.path + "/rules/database.rules.json"),
            logger: Logger(label: "test")
        )
        let engine = try database.namespace("chat")
        try await engine.set("h/a", "1")

        // The write of a = 2 is in LevelDB; its append waits.
        changelog.holding.store(true, ordering: .relaxed)
        let write = Task { try await engine.set("h/a", "2") }
        // An outcome, not a timing: a loaded full run may start the write's task late.
        try await eventually(timeout: .seconds(60)) { changelog.heldCount == 1 }
        // The listen's read holds a = 2: its first data waits for the append (a read never
        // answers what is not committed), then shows it.
        let subscriber = FakeSubscriber()
        let answered = Atomic<Bool>(false)
        let listen = Task {
            defer { answered.store(true, ordering: .relaxed) }
            return try await engine.listen(path: path("h"), query: nil, subscriber: subscriber, as: .admin)
        }
        try await Task.sleep(for: .milliseconds(200))
        let answeredEarly = answered.load(ordering: .relaxed)
        #expect(!answeredEarly, "the listen answered while its read's append waited")
        changelog.release()
        let start = try await listen.value
        #expect(text(start.data) == #"{"a":2}"#)
        try await write.value
        try await engine.set("h/b", "3")
        await engine.waitForDeliveries()
        #expect(subscriber.lines == ["d h/b 3"])
    }
}
