import Dispatch
import Synchronization

/// The periodic sync of one LevelDB database (`--sync periodic`): every `interval`, when
/// something was written since the last sync, its logs are fdatasynced beside the writes
/// (`LevelDB.syncLogs`), so no write waits for the disk. A sync that failed is tried again at
/// the next tick (its fault, if the disk's, refuses writes meanwhile: docs/disk-faults.md).
final class BackgroundLogSync: Sendable {
    private let db: LevelDB
    private let dirty = Atomic<Bool>(false)
    nonisolated(unsafe) private let timer: DispatchSourceTimer

    init(db: LevelDB, interval milliseconds: Int, label: String) {
        self.db = db
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: label, qos: .utility))
        timer.schedule(deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(milliseconds))
        timer.setEventHandler { [weak self] in self?.syncIfDirty() }
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    /// Notes a write LevelDB took without syncing it: the next tick syncs.
    func wrote() {
        dirty.store(true, ordering: .releasing)
    }

    /// Stops the ticks (the owner syncs once more as it closes).
    func cancel() {
        timer.cancel()
    }

    private func syncIfDirty() {
        if dirty.exchange(false, ordering: .acquiringAndReleasing) {
            do { try db.syncLogs() } catch { dirty.store(true, ordering: .releasing) }
        }
    }
}
