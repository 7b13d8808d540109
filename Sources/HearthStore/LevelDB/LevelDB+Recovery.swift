import CLevelDB
import Foundation
import HearthCore
import Logging

/// What a `LevelDB` does when the disk fails it: notes the fault, refuses writes while it lasts,
/// and reopens the database once the disk takes writes again (docs/disk-faults.md).
///
/// A handle whose write failed is not written to again: LevelDB keeps appending to a log that
/// may now end in a partial record (a failed `write(2)` leaves its log writer's block offsets
/// past what is on disk, and a failed fsync makes it refuse all later writes), so what is
/// written next could be lost at the next open. Reopening replays the log up to the failure,
/// starts a new one and leaves everything acknowledged before it in place.
///
/// A write already inside LevelDB when another one fails may still be appended behind the
/// failed record (only if the disk took it, an instant after refusing the other). It is not
/// acknowledged (`refuseIfAnotherWriteFailed`), and the reopen replays the log without paranoid
/// checks, so a record appended out of place is skipped rather than stopping the open: all that
/// was acknowledged lies before the failure.
extension LevelDB {
    /// At most one reopen is tried per this interval (each costs a probe file and, when the
    /// disk is back, a flush of the log into a table).
    static let reopenInterval = Duration.seconds(1)
    /// How long a reopen waits for readers in flight (new ones are refused meanwhile); a longer
    /// one (a backup) postpones it to a later attempt.
    static let drainTimeout = Duration.milliseconds(500)
    /// The probe written (and synced, then deleted) before a reopen.
    static let probeBytes = 1 << 20
    static let logger = Logger(label: "hearth.store")

    /// Notes damage found by a read: from now on every write is refused.
    func noteDamage(_ fault: StorageFault) {
        let first = state.withLock { state -> Bool in
            if state.damage != nil { return false }
            state.damage = fault
            return true
        }
        if first {
            Self.logger.critical(
                "the store's files are damaged; writes are refused until it is repaired (hearth doctor --repair)",
                metadata: ["hearth.data": "\(path)", "hearth.error": "\(fault.detail)"]
            )
        }
    }

    /// Notes a refused write: later writes are refused until a reopen succeeds.
    func noteWriteFault(_ fault: StorageFault) {
        if fault.cause == .damaged { return noteDamage(fault) }
        let first = state.withLock { state -> Bool in
            defer {
                state.writeFault = fault
                state.writeFaults += 1
            }
            return state.writeFault == nil
        }
        if first {
            Self.logger.error(
                "a write to the store failed: writes are refused until the disk takes them again (\(fault.reason))",
                metadata: ["hearth.data": "\(path)", "hearth.error": "\(fault.detail)"]
            )
        }
    }

    /// The number of write faults so far, just before a write; refuses it when one is noted
    /// (another write failed since `recoverIfFailed`).
    func writeFaultsBeforeWriting() throws -> Int {
        try state.withLock { state -> Result<Int, StoreError> in
            if let damage = state.damage { return .failure(damage.damage()) }
            if let fault = state.writeFault { return .failure(fault.writeRefusal()) }
            return .success(state.writeFaults)
        }.get()
    }

    /// Refuses a write LevelDB took when another write failed meanwhile: it may lie behind the
    /// failed record in the log, where a replay can skip it, so it is not acknowledged.
    func refuseIfAnotherWriteFailed(since faultsBefore: Int) throws {
        let fault = state.withLock { state -> StorageFault? in
            guard state.writeFaults != faultsBefore else { return nil }
            return state.writeFault ?? StorageFault("IO error: a write failed while this one was in flight")
        }
        if let fault { throw fault.writeRefusal() }
    }

    /// Returns when writes may go on: nothing failed, or a reopen after a failure succeeded.
    /// - Throws: the refusal of the fault while it lasts (or the damage found).
    func recoverIfFailed() throws {
        enum Step {
            case healthy, refuse(StoreError), reopen(StorageFault)
        }
        let step = state.withLock { state -> Step in
            if let damage = state.damage { return .refuse(damage.damage()) }
            guard let fault = state.writeFault else { return .healthy }
            let now = ContinuousClock.now
            if state.closed || state.reopening { return .refuse(fault.writeRefusal()) }
            if let last = state.lastReopen, now - last < Self.reopenInterval { return .refuse(fault.writeRefusal()) }
            state.lastReopen = now
            state.reopening = true
            return .reopen(fault)
        }
        switch step {
        case .healthy: return
        case .refuse(let error): throw error
        case .reopen(let fault):
            defer { state.withLock { $0.reopening = false } }
            try reopen(after: fault)
        }
    }

    /// Probes the disk, waits for readers, then closes and opens the database again.
    private func reopen(after fault: StorageFault) throws {
        if let probeFault = Self.probe(directory: path) {
            state.withLock { $0.writeFault = probeFault }
            throw probeFault.writeRefusal()
        }
        state.withLock { $0.refusingReaders = true }
        defer { state.withLock { $0.refusingReaders = false } }
        let deadline = ContinuousClock.now + Self.drainTimeout
        while state.withLock({ $0.activeReaders }) > 0 {
            if ContinuousClock.now > deadline { throw fault.writeRefusal() }
            usleep(1000)
        }
        let old = state.withLock { state -> Handle? in
            defer { state.handle = nil }
            return state.handle
        }
        if let old { leveldb_close(old.pointer) }
        var error: UnsafeMutablePointer<CChar>?
        let db = leveldb_open(reopenOptions, path, &error)
        if let error {
            let failure = StorageFault(String(cString: error))
            leveldb_free(error)
            if failure.cause == .damaged { noteDamage(failure) }
            state.withLock { $0.writeFault = failure }
            Self.logger.error(
                "reopening the store after a disk fault failed; the next write tries again",
                metadata: ["hearth.data": "\(path)", "hearth.error": "\(failure.detail)"]
            )
            throw failure.writeRefusal()
        }
        state.withLock { state in
            state.handle = Handle(db!)
            state.writeFault = nil
        }
        Self.logger.notice(
            "the store was reopened after a disk fault: writes are accepted again",
            metadata: ["hearth.data": "\(path)", "hearth.fault": "\(fault.detail)"]
        )
    }

    /// Writes, syncs and deletes a probe file in `directory`; the fault when the disk refused.
    static func probe(directory: String) -> StorageFault? {
        let path = directory + "/hearth-disk-probe"
        let fd = Foundation.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return StorageFault(failure("open", path)) }
        defer {
            _ = Foundation.close(fd)
            _ = Foundation.unlink(path)
        }
        let chunk = [UInt8](repeating: 0, count: 64 << 10)
        var written = 0
        while written < probeBytes {
            let count = chunk.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return StorageFault(failure("write", path)) }
            written += count
        }
        guard fsync(fd) == 0 else { return StorageFault(failure("fsync", path)) }
        return nil
    }

    /// LevelDB's form of an error (`IO error: <file>: <strerror>`), so it is classified alike.
    static func failure(_ call: String, _ path: String) -> String {
        "IO error: \(call) \(path): \(String(cString: strerror(errno)))"
    }

    /// Why `leveldb_open` failed, in words that say what to do.
    static func openFailure(path: String, message: String) -> StoreError {
        // LevelDB's lock is an fcntl lock on <db>/LOCK: held elsewhere, fcntl fails with EAGAIN
        // (or EACCES); held in this process, LevelDB says so. Anything else about LOCK (a
        // read-only directory) is not "in use".
        let busy = ["Resource temporarily unavailable", "Permission denied"]
        if message.contains("already held by process")
            || (message.contains("IO error: lock ") && busy.contains { message.contains($0) })
        {
            return StoreError(
                .locked,
                "The data directory '\(path)' is in use by another Hearth process (\(message)); stop it or use its REST API."
            )
        }
        let fault = StorageFault(message)
        switch fault.cause {
        case .damaged:
            return StoreError(
                .damaged,
                "The store in '\(path)' is damaged (\(message)). It was not opened, so nothing more is lost. "
                    + "Run `hearth doctor --data <data directory>` to see the damage, then "
                    + "`hearth doctor --data <data directory> --repair` to repair what LevelDB can."
            )
        case .diskFull, .readOnly, .permissionDenied, .ioError:
            return StoreError(
                .storageFailure,
                "Cannot open the store in '\(path)': \(fault.reason) (\(message)). Hearth writes to its data "
                    + "directory even to serve reads (LevelDB's lock and log): make it writable, or copy it to "
                    + "a writable place and run Hearth there."
            )
        case .other:
            return StoreError(.io, "Cannot open the data directory '\(path)': \(message)")
        }
    }
}
