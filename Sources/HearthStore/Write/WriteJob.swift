import HearthCore

/// One write as the namespace's writer runs it: planned against the round's snapshot, judged
/// by the caller's check, extended by the triggers, then staged with the round's other writes
/// or committed on its own. The whole policy of when a write may be staged lives here.
///
/// A write may be staged (applied with the round's other staged writes, planned against the
/// state before them) only when nothing it reads can have been changed by them:
/// - The planner reads only inside the locations the write touches (increments included),
///   checked against the staged ones. A location a staged write wrote too may be written
///   again when the planner answered it from the writer's memory alone (a hot counter: its
///   keys and value as the last staged write left them, `SubtreeShapes.Change.fromMemory`).
/// - Index maintenance notes the data it reads (`IndexPlanNotes`), checked against the staged
///   locations, and takes the indexed values the staged writes changed from the group.
/// - The rules and the triggers report what they read, checked against the staged locations
///   after they ran.
/// An ETag is compared before any check, so after a flush. Deletes and priority writes read
/// the state around them (orphaned priorities, the node a priority lands on): never staged.
struct WriteJob {
    let write: Write
    /// Where `write` lands, when worked out before the writer (or the error that refuses it).
    let locations: Result<WriteLocations, any Error>?
    let authorize: WriteAuthorizer?
    /// A key deleted in the same batch (an onDisconnect record, so that its write runs once).
    let consuming: [UInt8]?
    let namespace: String
    let keys: KeySpace
    let indexes: [RegisteredIndex]
    /// Which indexed lists keep entries (its `keep` is not called by a writer's reads).
    var listIndexing = ListIndexing.default
    let triggers: [NamespaceTrigger]
    /// The namespace's lookup indexes, kept in the write's batch.
    var lookups: [RegisteredLookup] = []
    let clock: @Sendable () -> Double

    func run(in round: WriteRound) throws -> WriteResult {
        let locations = try locations?.get() ?? WriteLocations(of: write, keys: keys)
        if write.ifMatch != nil { round.flushStaged() }
        // A write into a staged location would be planned twice (before and after the flush):
        // flush first, unless the writer remembers what is there (a hot counter), which it
        // may then plan from memory alone.
        if round.hasStaged {
            let dataKeys = locations.located.dataKeys
            let hashes = locations.hashes
            let remembered = { (index: Int) in round.shapes.shape(at: dataKeys[index], hash: hashes[index]) != nil }
            if round.stagedConflicts(dataKeys, fromMemory: remembered) { round.flushStaged() }
        }
        while true {
            if let result = try attempt(in: round, locations: locations) { return result }
            // It touches or read something staged: apply that first, then plan it again.
            round.flushStaged()
        }
    }

    /// Plans and commits (or stages) the write. Nil when it overlaps what is staged (or its
    /// check or a trigger read something staged).
    private func attempt(in round: WriteRound, locations: WriteLocations) throws -> WriteResult? {
        let reader = NamespaceReader(
            snapshot: try round.snapshotForWriting(),
            keys: keys,
            indexes: indexes,
            listIndexing: listIndexing
        )
        var batch = WriteBatch()
        let now = clock()
        var indexNotes = indexes.isEmpty ? nil : IndexPlanNotes(staged: round.stagedIndexedValue)
        // The planner of this round's snapshot, for the write and again for its combined form.
        func planner() -> WritePlanner {
            WritePlanner(
                reader: reader,
                batch: batch,
                shapes: round.shapes,
                indexNotes: indexNotes,
                keptLists: round.keptLists,
                learnsTails: !round.hasStaged
            )
        }
        let result = try planner().plan(write, now: now, locations: locations)
        guard case .committed(_, let values) = result else {
            try judgeFailedCondition(reader: reader, now: now, locations: locations)
            return result
        }
        if let authorize {
            let reads = round.hasStaged ? ReadLog() : nil
            var ruleReader = reader
            ruleReader.memory = RuleReadMemory(
                shapes: round.shapes,
                remembers: !round.hasStaged,
                written: keys.dataKey(write.location)
            )
            let allowed = authorize(
                WriteProposal(write: write, values: values, reader: ruleReader, now: now, reads: reads)
            )
            if let reads {
                // Judged without the staged writes: valid only if it read none of them.
                guard reads.isComplete, !round.stagedOverlaps(reads.paths.map(keys.dataKey)) else { return nil }
            }
            if !allowed { throw StoreError.permissionDenied }
        }
        var committed = (write: write, values: values, commit: Self.describe(write, values: values))
        var committedLocations: WriteLocations? = locations
        var jobs = write.jobs
        if !triggers.isEmpty {
            var run = TriggerRun(
                namespace: namespace,
                triggers: triggers,
                reader: reader,
                now: now,
                shapes: round.shapes,
                layouts: round.layouts
            )
            run.remembersListings = !round.hasStaged
            if round.hasStaged {
                let keys = self.keys
                run.stagedLaterChildren = { parent, child in
                    round.stagedLaterChildren(of: keys.dataKey(parent), after: KeyEncoding.encode(child))
                }
            }
            let outcome = try run.run(write, values: values)
            if round.hasStaged, Self.stagedChanges(outcome.reads, in: round, keys: keys) { return nil }
            jobs += outcome.jobs
            if let combined = outcome.combined {
                let write = combined.write
                batch = WriteBatch()
                indexNotes = indexes.isEmpty ? nil : IndexPlanNotes(staged: round.stagedIndexedValue)
                let planned = try planner().plan(write, now: now, locations: combined.locations)
                guard case .committed(_, let all) = planned else { preconditionFailure("an unconditional write") }
                committed = (write, all, combined.describe ?? Self.describe(write, values: all))
                committedLocations = combined.locations
            }
        }
        var lookupKeys: [[UInt8]] = []
        if !lookups.isEmpty,
            let changes = LookupMaintenance(lookups: lookups, reader: reader)
                .changes(for: committed.write, values: committed.values, locations: committedLocations)
        {
            if round.stagedOverlaps(changes.reads.map(keys.dataKey)) { return nil }
            changes.apply(to: batch)
            lookupKeys = changes.keys
        }
        // Index entries kept from a state without a staged write it reads: apply that first.
        if let indexNotes, round.stagedOverlaps(indexNotes.reads.paths.map(keys.dataKey)) { return nil }
        if let consuming { batch.delete(consuming) }
        let setsPriority =
            committedLocations.map { $0.located.isPriority.contains(true) } ?? committed.write.setsPriority
        let stageable = !committed.values.contains(where: { $0 == nil }) && !setsPriority
        let sequence: UInt64
        let fromMemory = round.shapes.staged.fromMemory
        if stageable,
            let staged = round.stage(
                batch,
                touching: lookupKeys.isEmpty ? round.shapes.staged.written : round.shapes.staged.written + lookupKeys,
                hashes: round.shapes.staged.hashes,
                fromMemory: { $0 < fromMemory.count && fromMemory[$0] },
                indexedValues: indexNotes?.indexedValues ?? [],
                jobs: jobs,
                as: committed.commit
            )
        {
            sequence = staged
        } else if round.hasStaged {
            return nil
        } else {
            sequence = try round.commit(batch, stagedShapes: true, jobs: jobs, as: committed.commit)
        }
        return WriteResult.committed(sequence: sequence, values: values)
    }

    /// True when a write staged in `round` could have changed what a trigger run read.
    private static func stagedChanges(_ reads: TriggerReads, in round: WriteRound, keys: KeySpace) -> Bool {
        if round.stagedOverlaps(reads.paths.map(keys.dataKey)) { return true }
        return reads.lastChildren.contains { read in
            round.stagedChangesLastChild(of: keys.dataKey(read.parent), found: read.found.map(KeyEncoding.encode))
        }
    }

    /// A failed `ifMatch` is answered only to callers allowed to make the write.
    private func judgeFailedCondition(reader: NamespaceReader, now: Double, locations: WriteLocations) throws {
        guard let authorize else { return }
        var unconditional = write
        unconditional.ifMatch = nil
        let planned = try WritePlanner(reader: reader, batch: WriteBatch())
            .plan(unconditional, now: now, locations: locations)
        if case .committed(_, let values) = planned,
            !authorize(WriteProposal(write: write, values: values, reader: reader, now: now))
        {
            throw StoreError.permissionDenied
        }
    }

    /// The commit of a plain write, given its sequence number.
    static func describe(_ write: Write, values: [Node?]) -> (UInt64) -> CommittedWrite {
        { sequence in
            switch write.operation {
            case .set(let path, _):
                return CommittedWrite(sequence: sequence, location: path, kind: .set(values.first ?? nil))
            case .update(let path, let entries):
                // Each entry's path alone (not the whole entry, whose value would be copied
                // and dropped again): a chat message's commit has hundreds.
                var changes: [(path: DataPath, node: Node?)] = []
                changes.reserveCapacity(min(entries.count, values.count))
                for index in 0..<min(entries.count, values.count) {
                    changes.append((entries[index].path, values[index]))
                }
                return CommittedWrite(sequence: sequence, location: path, kind: .update(changes))
            }
        }
    }

    /// The commit of a write with derived updates: one set when it replaces one location,
    /// otherwise one update at the deepest location containing every change.
    static func describe(_ overlay: WriteOverlay) -> (UInt64) -> CommittedWrite {
        var changes = overlay.entries
        for priority in overlay.priorities {
            changes.append((priority.owner.child(ChildKey(".priority")), priority.node))
        }
        if changes.count == 1 {
            let only = changes[0]
            return { CommittedWrite(sequence: $0, location: only.path, kind: .set(only.node)) }
        }
        var base = changes[0].path.parent ?? .root
        for change in changes.dropFirst() {
            while !base.isRoot && (!base.contains(change.path) || base == change.path) {
                base = base.parent ?? .root
            }
        }
        let location = base
        let relative = changes.map { (path: location.relative($0.path)!, node: $0.node) }
        return { CommittedWrite(sequence: $0, location: location, kind: .update(relative)) }
    }
}
