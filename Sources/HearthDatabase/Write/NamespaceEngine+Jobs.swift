public import HearthCore
import HearthStore

/// The namespace's queued jobs (`ServerJob`, queued by triggers in their writes' commits), for
/// their consumers. These calls read and write LevelDB on the calling thread: call them from a
/// consumer's own thread or queue, never from an event loop.
extension NamespaceEngine {
    /// Up to `limit` jobs of `queue` in key order, after `key` (from the first when nil).
    /// - Throws: `StoreError` when the store cannot be read (closed).
    public func jobs(in queue: String, after key: [UInt8]? = nil, limit: Int) throws -> [StoredJob] {
        try store.jobs(in: queue, after: key, limit: limit)
    }

    /// The payloads of `queue`'s jobs at `jobKeys` (nil where there is none), read in one
    /// snapshot.
    public func jobPayloads(in queue: String, at jobKeys: [[UInt8]]) throws -> [[UInt8]?] {
        try store.jobPayloads(in: queue, at: jobKeys)
    }

    /// How many jobs `queue` holds after `key` (from the first when nil), counted up to `limit`.
    public func jobCount(in queue: String, after key: [UInt8]? = nil, limit: Int) throws -> Int {
        try store.jobCount(in: queue, after: key, limit: limit)
    }

    /// Every queue of the namespace that holds a job.
    public func jobQueues() throws -> [String] {
        try store.jobQueues()
    }

    /// Applies `changes` atomically (a consumer's done jobs and follow-up jobs), as durable as a
    /// commit.
    /// - Throws: `StoreError` `.invalidWrite` for a bad queue name, or the store's failure.
    public func changeJobs(_ changes: [JobChange]) throws {
        try store.changeJobs(changes)
    }

    /// Calls `action` after every commit that queued jobs in `queue`, once it is as durable as
    /// the sync mode promises. It runs on the namespace's writer: only hand it on.
    public func onJobsQueued(in queue: String, _ action: @escaping @Sendable () -> Void) {
        store.observeCommits { commit in
            if commit.jobQueues.contains(queue) { action() }
        }
    }
}
