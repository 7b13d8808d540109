public import HearthCore

/// A node's local copy of a clustered namespace (see `ReplicationSink`): where it stands in the
/// cluster's changelog, catching it up, and clearing a copy that went astray. Each is called
/// only while the namespace is not open in this process (the node does not serve it).
extension Store {
    /// The changelog position and epoch of the last entry the local copy of `name` holds; nil
    /// when it holds none.
    public func replicationPosition(of name: String) throws -> ReplicationPosition? {
        try db.withSnapshot { snapshot in
            guard let id = snapshot.get(KeySpace.namespaceKey(name)).map(KeySpace.decodeBigEndian) else { return nil }
            return snapshot.get(KeySpace(namespaceID: id).replicationPositionKey).flatMap(KeySpace.decodePosition)
        }
    }

    /// Applies changelog entries to the local copy of `name`, in order, each in one batch with
    /// the position it reaches; the first one registers the namespace here when it is new.
    /// Throws when the namespace is open here, or when an entry does not follow the copy's
    /// position.
    public func applyReplicated(_ entries: [ReplicatedEntry], to name: String) throws {
        try Store.validateNamespaceName(name)
        try refuseOpen(name)
        let (keys, firstRegistration) = try localKeys(of: name)
        var registration = firstRegistration
        var position = try replicationPosition(of: name)?.lsn ?? 0
        for entry in entries {
            guard entry.lsn == position + 1 else {
                throw StoreError(
                    .corrupt,
                    "Changelog entry \(entry.lsn) of '\(name)' does not follow the local copy's position \(position)."
                )
            }
            let batch = try ReplicatedBatch.decode(entry.batch, into: keys)
            if let registration {
                batch.append(registration.batch())
            }
            registration = nil
            batch.put(
                keys.replicationPositionKey,
                KeySpace.encode(ReplicationPosition(lsn: entry.lsn, epoch: entry.epoch))
            )
            try db.write(batch, sync: false)
            position = entry.lsn
        }
    }

    /// Deletes every key of the local copy of `name` (its data, indexes, logs, queues and
    /// position; its id stays), so it catches up from the changelog's start.
    public func discardReplica(_ name: String) throws {
        try refuseOpen(name)
        guard let id = try db.withSnapshot({ $0.get(KeySpace.namespaceKey(name)) }).map(KeySpace.decodeBigEndian)
        else { return }
        for table in KeySpace.namespaceTables {
            let prefix = KeySpace.prefix(table, id)
            while true {
                let batch = WriteBatch()
                try db.withSnapshot { snapshot in
                    let cursor = snapshot.makeIterator()
                    cursor.seek(prefix)
                    while cursor.hasPrefix(prefix), batch.count < 20_000 {
                        batch.delete(Array(cursor.keyBytes))
                        cursor.next()
                    }
                }
                if batch.count == 0 { break }
                try db.write(batch, sync: false)
            }
        }
    }

    func refuseOpen(_ name: String) throws {
        if namespaces.withLock({ $0[name] != nil }) {
            throw StoreError(.invalidNamespace, "Namespace '\(name)' is open here: its local copy cannot be replaced.")
        }
    }

    /// The local id of `name`, and the registration to write with its first entry when it has
    /// none yet.
    func localKeys(of name: String) throws -> (KeySpace, NamespaceRegistration?) {
        if let stored = try db.withSnapshot({ $0.get(KeySpace.namespaceKey(name)) }) {
            return (KeySpace(namespaceID: KeySpace.decodeBigEndian(stored)), nil)
        }
        let keys = KeySpace(namespaceID: namespaceIDs.reserve())
        let registration = NamespaceRegistration(
            name: name,
            keys: keys,
            nextFreeID: { [namespaceIDs] in namespaceIDs.nextFree }
        )
        return (keys, registration)
    }
}

extension Store {
    /// Forgets the open namespace `name` (a cluster node that stopped serving it): the next
    /// `namespace(_:)` opens it again from disk. Whoever still holds the old one may finish
    /// with it; its writer refuses writes once the changelog refuses them.
    public func forgetNamespace(_ name: String) {
        namespaces.withLock { $0.removeValue(forKey: name) }?.retire()
    }
}
