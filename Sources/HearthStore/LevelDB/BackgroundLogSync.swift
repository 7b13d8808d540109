import Dispatch
import Logging
import Synchronization

/// The periodic sync of one LevelDB database (`--sync periodic`): every `interval`, when
/// something was written since the last sync, its logs are fdatasynced beside the writes
/// (`LevelDB.syncLogs`), so no write waits for the disk. A sync that failed is tried again at
/// the next tick (its fault, if the disk's, refuses writes meanwhile: docs/disk-faults.md); the
/// first failure of a run of them is logged, and the sync that succeeds after them.
final class BackgroundLogSync: Sendable {
    private let db: LevelDB
    private let dirty = Atomic<Bool>(false)
    private let milliseconds: Int
    /// The last sync failed (only the timer's queue reads and writes it).
    private let failing = Atomic<Bool>(false)
    nonisolated(unsafe) private let timer: DispatchSourceTimer

    init(db: LevelDB, interval milliseconds: Int, label: String) {
        self.db = db
        self.milliseconds = milliseconds
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
        guard dirty.exchange(false, ordering: .acquiringAndReleasing) else { return }
        do {
            try db.syncLogs()
            if failing.exchange(false, ordering: .relaxed) {
                LevelDB.logger.notice(
                    "the background fsync reaches the disk again",
                    metadata: ["hearth.data": "\(db.path)"]
                )
            }
        } catch {
            dirty.store(true, ordering: .releasing)
            if !failing.exchange(true, ordering: .relaxed) {
                LevelDB.logger.warning(
                    """
                    the background fsync failed: writes acknowledged since the last one are in the OS but not yet \
                    on the disk; it is tried again every \(milliseconds) ms (\(error))
                    """,
                    metadata: ["hearth.data": "\(db.path)"]
                )
            }
        }
    }
}
