import HearthCore

extension KeySpace {
    static let jobTable = UInt8(ascii: "J")

    /// The jobs of every queue of the namespace.
    var jobsPrefix: [UInt8] { KeySpace.prefix(KeySpace.jobTable, namespaceID) }

    /// The jobs of one queue: its name, length-prefixed (so no name is a prefix of another's).
    func jobsPrefix(queue: String) -> [UInt8] {
        var out = jobsPrefix
        let name = Array(queue.utf8.prefix(ServerJob.maxQueueNameBytes))
        out.append(UInt8(name.count))
        out += name
        return out
    }

    /// The key of the job at `key` in `queue`.
    func jobKey(queue: String, key: [UInt8]) -> [UInt8] {
        jobsPrefix(queue: queue) + key
    }

    /// Puts the jobs a commit of sequence number `sequence` queued into `batch`
    /// (`JobKey.committed`).
    func putJobs(_ jobs: [ServerJob], sequence: UInt64, into batch: WriteBatch) {
        for (index, job) in jobs.enumerated() {
            batch.put(jobKey(queue: job.queue, key: JobKey.committed(sequence: sequence, index: index)), job.payload)
        }
    }
}
