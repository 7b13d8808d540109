import Dispatch
import HearthCore
import Synchronization

/// A round's staged group that its writer handed to its committer (decision 0030): written to
/// LevelDB there, its commits told and its writes acknowledged, while the writer plans the
/// next round. At most one is in flight a writer; the writer waits for it before it writes to
/// LevelDB itself or hands over the next (`WriterState.collectInFlight`).
///
/// Until the writer collects it, the next round's writes are checked against `group` as
/// against a staged group of their own (the round's snapshot may not hold it yet).
final class CommitInFlight: @unchecked Sendable {
    /// The group's touched keys and indexed values, asked by the writer's next round. Only the
    /// writer's thread reads it (its batch went to the committer: `HandedGroup`); hence
    /// `@unchecked`.
    let group: StagedWrites
    /// The writer's sequence number before the group's first write.
    let sequenceBefore: UInt64
    private let written = DispatchSemaphore(value: 0)
    /// Set once, by the committer, before `written` is signalled.
    private let result = Mutex<(done: Bool, error: (any Error)?)>((false, nil))

    init(group: StagedWrites) {
        self.group = group
        self.sequenceBefore = group.sequenceBefore
    }

    /// True once the committer is done with the group (written or failed, told, acknowledged).
    var isDone: Bool { result.withLock { $0.done } }

    /// Called once, by the committer, when it is done with the group.
    func finish(_ error: (any Error)?) {
        result.withLock { $0 = (true, error) }
        written.signal()
    }

    /// Waits until the committer is done with the group; why it failed, if it did. Called once,
    /// by the writer.
    func waitUntilDone() -> (any Error)? {
        written.wait()
        return result.withLock { $0.error }
    }
}

/// What a writer hands its committer with a `CommitInFlight`: the group's batch and what
/// follows its write. Its batch and commits belong to the committer from the hand-over on
/// (the writer keeps no reference to the batch); hence `@unchecked`.
struct HandedGroup: @unchecked Sendable {
    let inFlight: CommitInFlight
    let batch: WriteBatch
    let output: BatchWriter
    let onCommit: @Sendable () -> Void
    /// The round's commits in order: those before `announcedBefore` were written by the round
    /// itself, the rest are the group's.
    let commits: [CommittedWrite]
    let announcedBefore: Int
    /// The group in flight before this one, done and collected: freed with this hand-over, on
    /// the committer's thread rather than the writer's.
    let retired: CommitInFlight?
    /// Each job's completion, in order (a staged write's fails when the group does).
    var completions: [@Sendable (Error?) -> Void] = []
}
