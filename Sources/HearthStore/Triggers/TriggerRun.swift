import HearthCore

/// Runs a namespace's triggers over one planned write: finds the matching locations it
/// changes, hands each trigger the values before and after, and lays what they return over
/// the write.
struct TriggerRun {
    let namespace: String
    let triggers: [NamespaceTrigger]
    let reader: NamespaceReader
    let now: Double
    /// The writer's remembered subtrees, for the numbers derived increments add to.
    var shapes: SubtreeShapes? = nil
    /// The writer's kept layouts of derived updates (nil: each located anew).
    var layouts: DerivedLayouts? = nil
    /// What the writes staged before this one do to a node's children after a child (nil:
    /// nothing is staged).
    var stagedLaterChildren: ((DataPath, ChildKey) -> TouchedKeys.LaterChildren)? = nil
    /// Whether the round has nothing staged, so that listings the triggers read may be
    /// remembered (`TriggerSnapshot.remembersListings`).
    var remembersListings = false

    /// What the triggers made of a write.
    struct Outcome {
        /// The write with every derived update laid over it (one multi-path update at the
        /// root); nil when no trigger returned an update.
        let combined: Combined?
        /// What the run read from the snapshot: matched locations, and what the triggers
        /// read. A write staged in the same round that changes one of them could change the
        /// outcome.
        let reads: TriggerReads
        /// The jobs the triggers queued, committed with the write.
        var jobs: [ServerJob] = []
    }

    /// The write and its derived updates as one multi-path update at the root.
    struct Combined {
        let write: Write
        /// Where it lands, when worked out already.
        let locations: WriteLocations?
        /// The commit, given its sequence number, when it is not the plain description of
        /// `write` with its planned values (the overlay's: one set, or one update at the
        /// deepest location containing every change).
        let describe: ((UInt64) -> CommittedWrite)?
    }

    /// - Throws: `StoreError` `.invalidWrite` when a trigger throws a `WriteRefusal` or returns
    ///   a `.priority` path, `.triggerFailed` when it throws anything else.
    func run(_ write: Write, values: [Node?]) throws -> Outcome {
        var overlay = WriteOverlay(write, values: values, reader: reader)
        overlay.shapes = shapes
        let client = overlay
        let log = TriggerReads()
        let jobs = TriggerJobs()
        var derived: [DerivedUpdate] = []
        for trigger in triggers {
            for location in PatternLocations(reader: reader).locations(of: trigger.pattern, changedBy: client) {
                log.note(location)
                // A new child past the end of a list whose end the writer knows (a chat's new
                // message) had nothing before it, and needs no read.
                let before =
                    shapes?.isPastTail(reader.keys.dataKey(location)) == true ? nil : reader.node(at: location)
                let after = client.value(at: location)
                if before == after { continue }
                let change = TriggerChange(
                    namespace: namespace,
                    path: location,
                    wildcards: trigger.pattern.match(location) ?? [:],
                    before: before,
                    after: after,
                    author: write.author,
                    now: now,
                    snapshot: TriggerSnapshot(
                        reader: reader,
                        reads: log,
                        shapes: shapes,
                        remembersListings: remembersListings
                    ),
                    written: TriggerWrittenState(
                        overlay: client,
                        reads: log,
                        stagedLaterChildren: stagedLaterChildren
                    ),
                    jobs: jobs
                )
                do {
                    // The first list is taken whole (a chat message's hundreds of updates are
                    // not copied one by one).
                    let updates = try trigger.trigger.updates(for: change)
                    if derived.isEmpty { derived = updates } else { derived += updates }
                } catch let refusal as WriteRefusal {
                    throw StoreError(
                        .invalidWrite,
                        "The write was refused by the trigger on '\(trigger.pattern)' at \(location): \(refusal.message)"
                    )
                } catch {
                    throw StoreError(
                        .triggerFailed,
                        "The trigger on '\(trigger.pattern)' failed at \(location) (nothing was written): \(error)"
                    )
                }
            }
        }
        if jobs.jobs.count > TriggerJobs.maxPerCommit {
            throw StoreError(
                .invalidWrite,
                "The write's triggers queued \(jobs.jobs.count) jobs; one commit holds at most \(TriggerJobs.maxPerCommit): write less at once."
            )
        }
        for job in jobs.jobs where job.queue.utf8.isEmpty || job.queue.utf8.count > ServerJob.maxQueueNameBytes {
            throw StoreError(
                .triggerFailed,
                "A trigger queued a job in '\(job.queue)': a queue's name is 1 to \(ServerJob.maxQueueNameBytes) bytes."
            )
        }
        guard !derived.isEmpty else { return Outcome(combined: nil, reads: log, jobs: jobs.jobs) }
        // A list at a kept layout's paths was checked when it was kept (none a priority or the
        // root): a chat message's hundreds of paths are compared with it, not looked at again.
        let layout =
            derived.count >= DerivedLayouts.minimumCount ? layouts?.layout(of: derived, keys: reader.keys) : nil
        if layout == nil, let update = derived.first(where: { $0.path.isPriorityPath }) {
            throw StoreError(
                .invalidWrite,
                "A trigger's update of '\(update.path)' was refused: triggers cannot write priorities."
            )
        }
        if let direct = Self.side(by: write, values: values, derived: &derived, keys: reader.keys, layout: layout) {
            return Outcome(combined: direct, reads: log, jobs: jobs.jobs)
        }
        for update in derived {
            // An increment needs only the number there: a point read, unless a priority is
            // incremented too.
            let numbersOnly = !update.value.serverValues.contains { $0.isPriority }
            let resolved = ServerValueResolver.resolve(update.value, now: now) { relative in
                let location = update.path.appending(relative)
                return numbersOnly ? overlay.leafValue(at: location) : overlay.value(at: location)
            }
            overlay.replace(update.path, with: resolved)
        }
        return Outcome(
            combined: Combined(write: overlay.write, locations: nil, describe: WriteJob.describe(overlay)),
            reads: log,
            jobs: jobs.jobs
        )
    }

    /// The write and the derived updates side by side, as one multi-path update at the root,
    /// when none of their locations contains another (a chat message and its members'
    /// counters): each derived update then applies to the stored state, and the planner
    /// resolves its increments as it does any update's (from the value the writer remembers,
    /// with no read), with no overlay to lay. Nil otherwise (or for a priority or a write at
    /// the root): the overlay orders them.
    /// - Parameter derived: the triggers' updates; taken (left empty) when the answer is not
    ///   nil, so that the combined write's entries are them, moved rather than copied.
    /// - Parameter layout: where the derived paths landed before (`DerivedLayouts`), when the
    ///   writer keeps them.
    static func side(
        by write: Write,
        values: [Node?],
        derived: inout [DerivedUpdate],
        keys: KeySpace,
        layout: DerivedLayouts.Layout? = nil
    ) -> Combined? {
        var leading: [UpdateEntry] = []
        for (path, node) in zip(write.writtenPaths, values) {
            guard !path.isRoot, !path.isPriorityPath else { return nil }
            leading.append(UpdateEntry(path: path, value: NewValue(node: node)))
        }
        // A kept layout has no path at the root.
        guard layout != nil || !derived.contains(where: { $0.path.isRoot }) else { return nil }
        var kept: WriteLocations?
        if let layout {
            guard let locations = WriteLocations(leading: leading.map(\.path), then: layout, keys: keys) else {
                return nil
            }
            kept = locations
        }
        // The derived list, held only here from now on, grows in place: its elements move.
        var entries = derived
        derived = []
        entries.insert(contentsOf: leading, at: 0)
        let combined = Write(.update(.root, entries))
        if let kept { return Combined(write: combined, locations: kept, describe: nil) }
        guard let locations = try? WriteLocations(of: combined, keys: keys) else {
            derived = Array(entries[leading.count...])
            return nil
        }
        return Combined(write: combined, locations: locations, describe: nil)
    }
}
