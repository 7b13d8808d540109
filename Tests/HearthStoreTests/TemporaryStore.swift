import Dispatch
import Foundation
import HearthCore
import HearthTestSupport
import Synchronization

@testable import HearthStore

/// A store in a fresh temporary directory, removed by `destroy()`.
final class TemporaryStore: @unchecked Sendable {
    let directory: String
    private(set) var store: Store
    private(set) var configuration: StoreConfiguration
    /// Sees every batch the namespace writers write (`StoreConfiguration.batchWriter`).
    let probe = BatchProbe()

    init(
        configuration: StoreConfiguration = .init(),
        clock: @escaping @Sendable () -> Double = { 1_700_000_000_000 }
    ) throws {
        directory = try TemporaryDirectory(prefix: "hearth-store").path
        self.configuration = probe.watching(configuration)
        store = try Store.open(directory: directory, configuration: self.configuration, clock: clock)
    }

    /// A store whose indexed lists keep entries once they hold more than `smallListLimit`
    /// children (`StoreConfiguration.smallListLimit`).
    convenience init(smallListLimit: Int) throws {
        var configuration = StoreConfiguration()
        configuration.smallListLimit = smallListLimit
        try self.init(configuration: configuration)
    }

    /// Closes and opens the store again, with `triggers` when given.
    func reopen(triggers: WriteTriggers? = nil) throws {
        store.close()
        if let triggers { configuration.triggers = triggers }
        store = try Store.open(directory: directory, configuration: configuration)
    }

    func destroy() {
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

func path(_ string: String) -> DataPath {
    DataPath(keys: string.split(separator: "/").map { ChildKey(String($0)) })
}

func value(_ json: String) throws -> NewValue {
    try TreeParser.parse(Array(json.utf8), at: .root)
}

extension NamespaceStore {
    @discardableResult
    func set(_ where_: String, _ json: String) async throws -> WriteResult {
        try await write(Write(.set(path(where_), try value(json))))
    }

    func update(_ where_: String, _ entries: [(String, String)]) async throws -> WriteResult {
        let parsed = try entries.map { UpdateEntry(path: path($0.0), value: try value($0.1)) }
        return try await write(Write(.update(path(where_), parsed)))
    }

    func json(_ where_: String, format: RenderFormat = .plain) async throws -> String {
        try await read { reader in
            var out: [UInt8] = []
            reader.renderJSON(at: path(where_), format: format, into: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }

    func node(_ where_: String) async throws -> Node? {
        try await read { $0.node(at: path(where_)) }
    }
}

extension NamespaceStore {
    /// Issues `writes` while the writer is held by another job, so that it takes them all in
    /// one round; returns their results in order.
    /// - Parameter beforeRound: runs on the writer just before the round (while it is held).
    /// - Parameter judged: more writes, after `writes`, each with the check that judges it.
    func writeInOneRound(
        _ writes: [Write],
        then judged: [(Write, WriteAuthorizer)] = [],
        beforeRound: @escaping @Sendable () -> Void = {}
    ) async throws -> [Result<WriteResult, Error>] {
        let gate = DispatchSemaphore(value: 0)
        // Wait until the holding job runs: writes queued before the writer takes it could
        // otherwise join its round, ahead of the hold.
        await withCheckedContinuation { (running: CheckedContinuation<Void, Never>) in
            writer.perform(
                { _ in
                    running.resume()
                    gate.wait()
                    beforeRound()
                },
                completion: { _ in }
            )
        }
        return await withCheckedContinuation { continuation in
            let results = ResultsBox(count: writes.count + judged.count) { continuation.resume(returning: $0) }
            for (index, write) in writes.enumerated() {
                self.write(write) { results.set(index, $0) }
            }
            for (offset, (write, check)) in judged.enumerated() {
                self.write(write, authorize: check) { results.set(writes.count + offset, $0) }
            }
            gate.signal()
        }
    }
}

/// Counts the staged groups the writers apply, and refuses the next one on demand: the test
/// seam in place of hooks in the writer.
final class BatchProbe: Sendable {
    private let state = Mutex<(groups: Int, lastGroupOperations: Int, failNext: (any Error)?)>((0, 0, nil))

    /// How many staged groups reached LevelDB.
    var groupsApplied: Int { state.withLock { $0.groups } }

    /// The puts and deletes of the last staged group that reached LevelDB.
    var lastGroupOperations: Int { state.withLock { $0.lastGroupOperations } }

    /// The next staged group fails with `error` instead of being written.
    func failNextGroup(with error: any Error) {
        state.withLock { $0.failNext = error }
    }

    private func takeFailure() -> (any Error)? {
        state.withLock { state in
            defer { state.failNext = nil }
            return state.failNext
        }
    }

    func watching(_ configuration: StoreConfiguration) -> StoreConfiguration {
        var watched = configuration
        let inner = configuration.batchWriter
        watched.batchWriter = { [self] db in
            let output = inner(db)
            return BatchWriter { batch, kind in
                guard kind == .stagedGroup else { return try output.write(batch, kind) }
                if let error = self.takeFailure() { throw error }
                try output.write(batch, kind)
                self.state.withLock {
                    $0.groups += 1
                    $0.lastGroupOperations = batch.count
                }
            }
        }
        return watched
    }
}

/// Collects results from the writer's thread; calls `done` with all of them after the last.
private final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<WriteResult, Error>?]
    private var missing: Int
    private let done: ([Result<WriteResult, Error>]) -> Void

    init(count: Int, done: @escaping ([Result<WriteResult, Error>]) -> Void) {
        results = Array(repeating: nil, count: count)
        missing = count
        self.done = done
    }

    func set(_ index: Int, _ result: Result<WriteResult, Error>) {
        lock.lock()
        results[index] = result
        missing -= 1
        let finished = missing == 0
        lock.unlock()
        if finished { done(results.map { $0! }) }
    }
}
