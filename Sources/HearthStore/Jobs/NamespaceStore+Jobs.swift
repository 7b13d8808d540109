public import HearthCore

/// The namespace's queued jobs (`ServerJob`): put by triggers in their writes' commits, read
/// and removed by their consumers. Job changes are written straight to LevelDB, not through the
/// writer: no write of the tree touches a job's key, and a consumer's change needs no order
/// against commits (a job it removes was committed before it read it).
extension NamespaceStore {
    /// Up to `limit` jobs of `queue` in key order, after `key` (from the first when nil).
    public func jobs(in queue: String, after key: [UInt8]? = nil, limit: Int) throws -> [StoredJob] {
        try readNow(indexes: []) { reader in reader.jobs(in: queue, after: key, limit: limit) }
    }

    /// The payloads of `queue`'s jobs at `jobKeys` (nil where there is none), read in one
    /// snapshot.
    public func jobPayloads(in queue: String, at jobKeys: [[UInt8]]) throws -> [[UInt8]?] {
        try readNow(indexes: []) { reader in reader.jobPayloads(in: queue, at: jobKeys) }
    }

    /// How many jobs `queue` holds after `key` (from the first when nil), counted up to `limit`
    /// (keys only: no payload is copied).
    public func jobCount(in queue: String, after key: [UInt8]? = nil, limit: Int) throws -> Int {
        try readNow(indexes: []) { reader in reader.jobCount(in: queue, after: key, limit: limit) }
    }

    /// Every queue that holds a job, sorted by name (a scan that skips from queue to queue).
    public func jobQueues() throws -> [String] {
        let prefix = keys.jobsPrefix
        var names: [String] = []
        try db.withSnapshot { snapshot in
            let cursor = snapshot.makeIterator()
            cursor.seek(prefix)
            while cursor.hasPrefix(prefix) {
                let key = Array(cursor.keyBytes)
                guard key.count > prefix.count else { break }
                let length = Int(key[prefix.count])
                let start = prefix.count + 1
                guard key.count >= start + length else { break }
                let name = Array(key[start..<(start + length)])
                names.append(String(decoding: name, as: UTF8.self))
                // Past every key of this queue: the first key after its prefix (a name is
                // UTF-8, so its last byte is never 0xFF and can be counted up).
                var next = Array(key[..<(start + length)])
                next[next.count - 1] += 1
                cursor.seek(next)
            }
        }
        return names.sorted()
    }

    /// Applies `changes` atomically, as durable as the store's sync mode makes a commit.
    /// - Throws: `StoreError` `.invalidWrite` for a queue name that is empty or longer than
    ///   `ServerJob.maxQueueNameBytes`; the store's error when LevelDB fails.
    public func changeJobs(_ changes: [JobChange]) throws {
        guard !changes.isEmpty else { return }
        if writer.isReplicated {
            // In a cluster the queue is the namespace's, so its changes go through the writer
            // into the changelog: a successor must not run a job again that was done here.
            try performAndWait { [self] round in try round.commitUnsequenced(try jobBatch(changes)) }
            return
        }
        try db.write(try jobBatch(changes), sync: syncsEveryWrite)
        if !syncsEveryWrite { onCommit() }
    }

    private func jobBatch(_ changes: [JobChange]) throws -> WriteBatch {
        let batch = WriteBatch()
        for change in changes {
            switch change {
            case .put(let queue, let key, let payload):
                try Self.checkQueueName(queue)
                batch.put(keys.jobKey(queue: queue, key: key), payload)
            case .remove(let queue, let key):
                try Self.checkQueueName(queue)
                batch.delete(keys.jobKey(queue: queue, key: key))
            }
        }
        return batch
    }

    private static func checkQueueName(_ queue: String) throws {
        let count = queue.utf8.count
        guard count > 0, count <= ServerJob.maxQueueNameBytes else {
            throw StoreError(
                .invalidWrite,
                "The job queue '\(queue)' cannot be used: a queue's name is 1 to \(ServerJob.maxQueueNameBytes) bytes."
            )
        }
    }
}

extension NamespaceReader {
    /// Up to `limit` jobs of `queue` in key order, after `key`, as this reader's snapshot holds
    /// them (consistent with its tree: `hearth chat check` compares the two).
    public func jobs(in queue: String, after key: [UInt8]? = nil, limit: Int) -> [StoredJob] {
        let prefix = keys.jobsPrefix(queue: queue)
        var found: [StoredJob] = []
        guard limit > 0 else { return found }
        let cursor = snapshot.makeIterator()
        cursor.seek(key.map { prefix + $0 + [0] } ?? prefix)
        while cursor.hasPrefix(prefix), found.count < limit {
            let stored = Array(cursor.keyBytes)
            found.append(
                StoredJob(queue: queue, key: Array(stored[prefix.count...]), payload: Array(cursor.valueBytes))
            )
            cursor.next()
        }
        return found
    }

    /// Calls `body` with every job of `queue` in this reader's snapshot, in key order (one
    /// cursor).
    public func forEachJob(in queue: String, _ body: (StoredJob) throws -> Void) rethrows {
        let prefix = keys.jobsPrefix(queue: queue)
        let cursor = snapshot.makeIterator()
        cursor.seek(prefix)
        while cursor.hasPrefix(prefix) {
            let stored = Array(cursor.keyBytes)
            try body(StoredJob(queue: queue, key: Array(stored[prefix.count...]), payload: Array(cursor.valueBytes)))
            cursor.next()
        }
    }

    /// The payloads of `queue`'s jobs at `jobKeys` in this reader's snapshot (point reads).
    public func jobPayloads(in queue: String, at jobKeys: [[UInt8]]) -> [[UInt8]?] {
        let prefix = keys.jobsPrefix(queue: queue)
        return jobKeys.map { snapshot.get(prefix + $0) }
    }

    /// How many jobs of `queue` this reader's snapshot holds after `key`, up to `limit`.
    public func jobCount(in queue: String, after key: [UInt8]? = nil, limit: Int) -> Int {
        let prefix = keys.jobsPrefix(queue: queue)
        var count = 0
        let cursor = snapshot.makeIterator()
        cursor.seek(key.map { prefix + $0 + [0] } ?? prefix)
        while count < limit, cursor.hasPrefix(prefix) {
            count += 1
            cursor.next()
        }
        return count
    }
}
