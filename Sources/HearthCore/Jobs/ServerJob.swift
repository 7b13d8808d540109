/// Work a write leaves for the server to do outside the tree (a push notification to send, a
/// file to delete), queued by a trigger in the write's own commit: a transactional outbox. The
/// job exists exactly when the write committed, whatever crashes, and stays queued until its
/// consumer removes it (`JobChange.remove`), so it is done at least once.
public struct ServerJob: Sendable, Hashable {
    /// The queue's name: 1 to `maxQueueNameBytes` bytes of UTF-8, one consumer's.
    public var queue: String
    /// What the consumer needs, in its own encoding.
    public var payload: [UInt8]

    /// The most bytes of UTF-8 in a queue's name.
    public static let maxQueueNameBytes = 64

    public init(queue: String, payload: [UInt8]) {
        self.queue = queue
        self.payload = payload
    }

    /// The queues of `jobs`, each once, in the order they first appear.
    public static func queues(of jobs: [ServerJob]) -> [String] {
        var queues: [String] = []
        for job in jobs where !queues.contains(job.queue) { queues.append(job.queue) }
        return queues
    }
}

/// A queued job as stored: its queue, its key there (jobs are kept in the byte order of their
/// keys) and its payload. A job a trigger queued has the key `JobKey.committed(sequence:index:)`:
/// its commit's sequence number and its place among that commit's jobs, so a queue holds them in
/// commit order.
public struct StoredJob: Sendable, Hashable {
    public let queue: String
    public let key: [UInt8]
    public let payload: [UInt8]

    public init(queue: String, key: [UInt8], payload: [UInt8]) {
        self.queue = queue
        self.key = key
        self.payload = payload
    }
}

/// One change a consumer makes to the queued jobs; a list of them is applied atomically.
public enum JobChange: Sendable, Hashable {
    /// Puts (or replaces) the job at `key` of `queue`: a consumer's own follow-up work, ordered
    /// by keys it chooses.
    case put(queue: String, key: [UInt8], payload: [UInt8])
    /// Removes the job at `key` of `queue` (done, or given up); nothing when it is not there.
    case remove(queue: String, key: [UInt8])
}

/// The keys jobs are stored under.
public enum JobKey {
    /// The key of a job a trigger queued: the commit's sequence number (8 bytes) and the job's
    /// place among that commit's jobs (2 bytes), big-endian, so keys sort in commit order.
    public static func committed(sequence: UInt64, index: Int) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(10)
        for shift in stride(from: 56, through: 0, by: -8) {
            key.append(UInt8(truncatingIfNeeded: sequence >> UInt64(shift)))
        }
        key.append(UInt8(truncatingIfNeeded: index >> 8))
        key.append(UInt8(truncatingIfNeeded: index))
        return key
    }

    /// The sequence number and place of a `committed` key; nil for another key.
    public static func commitOrder(of key: [UInt8]) -> (sequence: UInt64, index: Int)? {
        guard key.count == 10 else { return nil }
        let sequence = key[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return (sequence, Int(key[8]) << 8 | Int(key[9]))
    }
}
