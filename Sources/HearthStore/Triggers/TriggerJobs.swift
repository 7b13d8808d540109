import HearthCore

/// The jobs (`ServerJob`) the triggers of one run queued, in the order they queued them; they
/// commit with the write (`KeySpace.jobKey`). A run planned again starts a new list.
final class TriggerJobs {
    private(set) var jobs: [ServerJob] = []

    /// The most jobs one commit may queue (a job's place in its commit is 2 bytes of its key).
    static let maxPerCommit = Int(UInt16.max)

    func queue(_ job: ServerJob) {
        jobs.append(job)
    }
}
