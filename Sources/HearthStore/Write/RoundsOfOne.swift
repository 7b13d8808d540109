import Synchronization

/// Whether a writer's queued rounds take one job at a time (decision 0005, last addendum).
///
/// A round's writes are acknowledged when its group is written, at the round's end. For
/// expensive writes that share nothing (messages of different chats, ~400 µs each), grouping
/// saves one log write per write and holds each write's acknowledgement, and so its sender's
/// next write, for the planning of the others: the writer then waits for senders between rounds.
/// For expensive writes that share locations (one chat's messages, its members' counters),
/// grouping writes each shared key once, which a round of one cannot.
///
/// So the writer learns from the rounds that group: when a write joins a large staged group
/// and writes none of its locations again, later rounds take one job; when one writes a shared
/// location again, they group again. While rounds take one job, every `checkEvery`th round
/// groups what waits, to learn again, and so does a round that finds more than `maxWaiting`
/// jobs waiting.
final class RoundsOfOne: Sendable {
    static let checkEvery = 64
    /// With more jobs than this waiting, a round takes them all anyway: the writer is far
    /// behind, so their acknowledgements are late whatever it does, and taking one at a time
    /// from a long queue would cost a shift of the queue each.
    static let maxWaiting = 64

    private let oneJob = Atomic<Bool>(false)
    private let rounds = Atomic<Int>(0)

    /// Whether the next round takes one job.
    func takesOneJob() -> Bool {
        guard oneJob.load(ordering: .relaxed) else { return false }
        return rounds.add(1, ordering: .relaxed).newValue % Self.checkEvery != 0
    }

    /// A round that grouped expensive writes: whether one wrote a location of a large group
    /// again.
    func learn(groupShared shared: Bool) {
        oneJob.store(!shared, ordering: .relaxed)
    }

    /// Whether rounds take one job now (tests).
    var isOn: Bool { oneJob.load(ordering: .relaxed) }
}
