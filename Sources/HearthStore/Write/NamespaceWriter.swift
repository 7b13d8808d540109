import Dispatch
import HearthCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one serial writer of a namespace. Jobs run in rounds, one round at a time: on its queue
/// (a thread of its own while it has work, `WriterThread`), or, for the cheap writes event
/// loops hand over in a `WritePass`, on its home loop. Each round applies every waiting job,
/// then (with `--sync always`, queue only) one fsync covers them all before any of them is
/// acknowledged: group commit.
///
/// Within a round, writes that cannot see one another (see `WriteJob`) are *staged*: each
/// gets its sequence number at once, but their batches are applied to LevelDB together, as one
/// batch, before the round ends, so a round of small writes costs one log write instead of one
/// per write. Any other job finds the staged writes applied before it runs; a staged write is
/// acknowledged only after they are. The round (`WriteRound`) owns what is staged; the
/// writer's lasting state (`WriterState`) is reached only through it.
final class NamespaceWriter: Sendable, WritePassMember {
    typealias Completion = @Sendable (Error?) -> Void
    typealias Job = @Sendable (WriteRound) -> Completion

    private struct Queue {
        /// Jobs waiting for a round: the queue's, and other loops' for the home loop.
        var jobs: [Job] = []
        /// A drain on the queue is scheduled or under way: it takes `jobs` until none are left.
        var scheduled = false
        /// A task on the home loop is scheduled to run `jobs`.
        var homeAsked = false
    }

    /// Where the queue's rounds run.
    private enum RoundThread {
        /// A thread of the writer's own, draining the queue at each wake.
        case own(WriterThread)
        /// The store's thread for replicated writers, a round at a time in turn with the others.
        case shared(SharedWriterThread)
    }

    private let roundThread: RoundThread
    private let pending = Mutex(Queue())
    private let db: LevelDB
    private let syncAlways: Bool
    /// `StoreConfiguration.loopJobLimit`.
    private let loopJobLimit: UInt64
    /// `StoreConfiguration.homeIdleLimit`.
    private let homeIdleLimit: UInt64
    /// `StoreConfiguration.loopProbeInterval`.
    private let loopProbeInterval: UInt64
    /// When a pass's jobs last went to the loop while jobs were not cheap (`Self.now()`).
    private let probedAt = Atomic<UInt64>(0)
    private let commitLog: CommitLog?
    /// In a cluster: the changelog every round's batches go to before they are acknowledged
    /// (every round then runs on the queue, as with `--sync always`).
    private let replication: ReplicationCapture?
    /// Held by the running round for as long as it runs: the queue's or the home loop's (which
    /// never waits for it, `runHere`).
    private let state: Mutex<WriterState>
    /// Told about every commit, in order, once it is as durable as the sync mode promises.
    private let observers = Mutex<[@Sendable (CommittedWrite) -> Void]>([])

    init(
        name: String,
        db: LevelDB,
        keys: KeySpace,
        sequence: UInt64,
        syncAlways: Bool,
        loopJobLimit: UInt64,
        homeIdleLimit: UInt64,
        loopProbeInterval: UInt64,
        registration: NamespaceRegistration?,
        output: BatchWriter,
        commitLog: CommitLog?,
        replication: ReplicationCapture? = nil,
        sharedThread: SharedWriterThread? = nil,
        onCommit: @escaping @Sendable () -> Void
    ) {
        if replication != nil, let sharedThread {
            roundThread = .shared(sharedThread)
        } else {
            roundThread = .own(WriterThread(name: name))
        }
        self.db = db
        self.syncAlways = syncAlways
        self.loopJobLimit = loopJobLimit
        self.homeIdleLimit = homeIdleLimit
        self.loopProbeInterval = loopProbeInterval
        self.commitLog = commitLog
        self.replication = replication
        state = Mutex(
            WriterState(
                sequence: sequence,
                registration: registration,
                db: db,
                output: replication?.wrapping(output) ?? output,
                keys: keys,
                commitLog: commitLog,
                onCommit: onCommit
            )
        )
    }

    /// Runs `body` on the writer, every staged write applied first; resumes after the round's
    /// sync when `--sync always`.
    func perform<T: Sendable>(_ body: @escaping @Sendable (WriteRound) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            perform(body) { continuation.resume(with: $0) }
        }
    }

    /// Runs `body` on the writer and calls `completion` with its result after the round's sync
    /// (`--sync always`), on the writer's thread: it must only hand the result on.
    /// - Parameter staging: the job may stage its write (`WriteRound.stage`) and flushes what
    ///   earlier jobs staged itself when it needs to read it; other jobs find every staged
    ///   write applied.
    /// - Parameter pass: the event loop's pass that hands the job over, if any (`WritePass`).
    func perform<T: Sendable>(
        staging: Bool = false,
        in pass: WritePass? = nil,
        _ body: @escaping @Sendable (WriteRound) throws -> T,
        completion: @escaping @Sendable (Result<T, Error>) -> Void
    ) {
        enqueue(in: pass) { round in
            round.beginJob(staging: staging)
            let result: Result<T, Error>
            do { result = .success(try body(round)) } catch { result = .failure(error) }
            let group = round.endJob()
            return { syncError in
                // A staged write fails when its group could not be applied.
                if let error = group?.error ?? syncError, case .success = result {
                    completion(.failure(error))
                } else {
                    completion(result)
                }
            }
        }
    }

    /// Whether the writer's batches go to a cluster's changelog.
    var isReplicated: Bool { replication != nil }

    /// Refuses every later write (`NamespaceStore.retire`).
    func retire() {
        replication?.refuse(StoreError(.notOwner, "This node no longer serves the namespace; retry."))
    }

    /// Calls `resume` once every batch up to replication position `position` is in the
    /// cluster's changelog (at once when it is, or when the namespace is not replicated), or
    /// with the refusal when its append failed (`ReplicationCapture.durable(through:_:)`).
    func durable(through position: UInt64, _ resume: @escaping @Sendable (StoreError?) -> Void) {
        guard let replication else { return resume(nil) }
        replication.durable(through: position, resume)
    }

    /// Reads the writer's lasting state between rounds (tests).
    func inspect<T: Sendable>(_ body: (WriterState) -> T) -> T {
        state.withLock { body($0) }
    }

    static func encode(_ sequence: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: sequence >> UInt64(shift)))
        }
        return bytes
    }

    /// Adds an observer of commits; it runs on the writer's queue and must not block.
    func observe(_ observer: @escaping @Sendable (CommittedWrite) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    private func enqueue(in pass: WritePass?, _ job: @escaping Job) {
        if !syncAlways, replication == nil, let pass, jobsAreCheap.load(ordering: .relaxed) || probeIsDue() {
            pass.add(job, for: self)
        } else {
            enqueueOnQueue(job)
        }
    }

    /// Whether the loops that hand this writer jobs run its rounds now (its jobs are cheap);
    /// else its queue does, but for the probes.
    var jobsRunOnLoops: Bool { jobsAreCheap.load(ordering: .relaxed) }

    /// True for one caller in each `loopProbeInterval` while jobs are not cheap: its job goes to
    /// the loop, whose round measures what jobs cost there now.
    private func probeIsDue() -> Bool {
        guard loopJobLimit > 0 else { return false }  // every round on the queue, as configured
        let now = Self.now()
        let last = probedAt.load(ordering: .relaxed)
        guard now &- last >= loopProbeInterval else { return false }
        return probedAt.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
    }

    private func enqueueOnQueue(_ job: @escaping Job) {
        let start = pending.withLock { state -> Bool in
            state.jobs.append(job)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if start { scheduleDrain() }
    }

    /// The loop that runs this writer's rounds for every loop (`WritePass`): the first one
    /// to hand it jobs, until it hands none for `homeIdleLimit`; and when it last handed some
    /// (`Self.now()`).
    private let home = Mutex<(loop: WritePass.Home?, handedAt: UInt64)>((nil, 0))
    /// What a job of this writer's recent rounds on a loop took, on average (a moving average
    /// of the running thread's CPU time, in nanoseconds; written under the state's lock). The
    /// queue's rounds are not counted: they cost more per job (decision 0002), and counting them
    /// kept a writer whose loop rounds were cheap on its queue for good.
    private let jobNanoseconds = Atomic<UInt64>(0)
    /// Callers hand their jobs to the home loop only while jobs are cheap: not after the
    /// average rose above `loopJobLimit`, again once it fell below four fifths of it (decision
    /// 0002: a one-put round costs more per job than a 16-put one, and a return at half the
    /// limit kept many one-put writers on their queues for good).
    private let jobsAreCheap = Atomic<Bool>(true)

    /// Runs `jobs`, handed over at the end of a pass of `caller` (`WritePass`), on the writer's home loop: at
    /// once when `caller` is (or becomes) the home; else they wait with the queue's jobs for
    /// the home's next round (one task there is asked for, unless one is already, or the
    /// queue's drain will take them).
    ///
    /// `caller` becomes the home when there is none yet, or when the home handed no jobs of
    /// its own for `homeIdleLimit`: with one busy loop (one writer, or every writer's
    /// connections on it), that loop runs the rounds with no wake-up of another. Any thread may
    /// run a round (they are serialized by the lock on the state), so a move needs nothing more:
    /// a task already asked of the old home runs whatever waits then, or nothing.
    func run(_ jobs: [Job], handedBy caller: WritePass.Home) {
        let now = Self.now()
        let home = self.home.withLock { home -> WritePass.Home in
            if let loop = home.loop, loop.id != caller.id,
                now <= home.handedAt || now - home.handedAt < homeIdleLimit
            {
                return loop
            }
            home = (caller, now)
            return caller
        }
        if home.id == caller.id { return runHere(jobs) }
        // They join the waiting jobs: the home's next round takes them, its own or the task's.
        let ask = pending.withLock { state -> Bool in
            state.jobs.append(contentsOf: jobs)
            if state.homeAsked || state.scheduled { return false }
            state.homeAsked = true
            return true
        }
        if ask {
            home.execute {
                self.pending.withLock { $0.homeAsked = false }
                self.runHere([])
            }
        }
    }

    /// Runs `jobs` in a round on this thread, after the jobs queued before them. While the
    /// queue's round runs they join the queue instead: a loop never waits for a round.
    private func runHere(_ jobs: [Job]) {
        let completions = state.withLockIfAvailable { state -> [Completion] in
            var queued = pending.withLock { state -> [Job] in
                var jobs: [Job] = []
                swap(&jobs, &state.jobs)
                return jobs
            }
            queued.append(contentsOf: jobs)
            guard !queued.isEmpty else { return [] }
            let round = run(queued, in: state, onLoop: true)
            tell(round.commits)
            return round.completions
        }
        guard let completions else {
            // A probe that found the queue's round running measured nothing: the next job
            // probes, not one a whole interval later (a writer whose queue is never idle would
            // otherwise lose every probe, and stay on its queue for good).
            if !jobs.isEmpty, !jobsAreCheap.load(ordering: .relaxed) { probedAt.store(0, ordering: .relaxed) }
            // The queue's round holds the state: its drain takes these after the waiting ones.
            let start = pending.withLock { state -> Bool in
                state.jobs.append(contentsOf: jobs)
                if state.scheduled || state.jobs.isEmpty { return false }
                state.scheduled = true
                return true
            }
            if start { scheduleDrain() }
            return
        }
        for completion in completions { completion(nil) }
    }

    /// Has the queue's jobs run: on the writer's own thread, or one round at a time on the
    /// store's shared thread for replicated writers.
    private func scheduleDrain() {
        switch roundThread {
        case .own(let thread): thread.wake { self.drain() }
        case .shared(let thread): thread.take { followed in self.drainRound(followed: followed) }
        }
    }

    private func drain() {
        while drainRound() {}
    }

    /// Runs one round of the queue's jobs; true when more came meanwhile, false when none waits
    /// after it (or none was waiting: a loop's round took them) — the writer is then idle, and
    /// its next job schedules a drain again. `followed`: on the store's shared thread,
    /// more writers' rounds follow this one at once (`SharedWriterThread`), so the round's
    /// changelog append may wait for them and go with theirs.
    private func drainRound(followed: Bool = false) -> Bool {
        // Without `--sync always` or a cluster the observers hear the round's commits under
        // the lock, as after a loop's round; with either (the queue runs every round then)
        // after the fsync and the changelog's append.
        let waits = syncAlways || replication != nil
        let alone = !waits && roundsOfOne.takesOneJob()
        let jobs = pending.withLock { state -> [Job] in
            if alone, state.jobs.count > 1, state.jobs.count <= RoundsOfOne.maxWaiting {
                return [state.jobs.removeFirst()]
            }
            let jobs = state.jobs
            state.jobs = []
            if jobs.isEmpty { state.scheduled = false }
            return jobs
        }
        if jobs.isEmpty { return false }
        let (completions, commits) = state.withLock { state -> ([Completion], [CommittedWrite]) in
            let round = run(jobs, in: state, onLoop: false)
            guard waits else {
                tell(round.commits)
                return (round.completions, [])
            }
            return round
        }
        var syncError: Error?
        if syncAlways {
            do {
                try db.sync()
            } catch {
                syncError = error
                // Whether the round's writes survive the store's reopen is not known: plan
                // the next ones from the store, not from what the writer remembers.
                state.withLock { $0.shapes.removeAll() }
            }
        }
        if let replication, syncError == nil {
            settleReplicated(
                replication,
                timing: followed ? .afterPass : .now,
                completions: completions,
                commits: commits
            )
            return jobsWaiting()
        }
        if waits, replication == nil || syncError == nil { tell(commits) }
        for completion in completions { completion(syncError) }
        return jobsWaiting()
    }

    /// Whether jobs came during the round; if none did, the writer is idle (under the same lock
    /// as `enqueueOnQueue`'s check: a job that comes after this schedules a drain).
    private func jobsWaiting() -> Bool {
        pending.withLock { state in
            if state.jobs.isEmpty {
                state.scheduled = false
                return false
            }
            return true
        }
    }

    /// Hands the round's batches to the changelog and goes on: the round is acknowledged (and
    /// its commits told) when the append carrying it completes, after every earlier round's
    /// (`Acknowledgements`). One append is in flight at a time; rounds made meanwhile go
    /// together in the next (`ReplicationCapture.flush`). At most `appendsInFlight` rounds wait
    /// at once; the next round waits for one of them.
    private func settleReplicated(
        _ replication: ReplicationCapture,
        timing: ReplicationSink.Timing,
        completions: [Completion],
        commits: [CommittedWrite]
    ) {
        let ticket = acknowledgements.take()
        let settle: @Sendable (StoreError?) -> Void = { [self] error in
            acknowledgements.complete(ticket) {
                if let error {
                    // Not the namespace's history: nothing of the round is announced.
                    self.state.withLock { $0.shapes.removeAll() }
                    for completion in completions { completion(error) }
                } else {
                    self.tell(commits)
                    for completion in completions { completion(nil) }
                }
            }
        }
        appendSlots.wait()
        let flushed = replication.flush(timing) { error in
            self.appendSlots.signal()
            settle(error)
        }
        switch flushed {
        case .sent:
            break
        case .nothing:
            appendSlots.signal()
            settle(nil)
        case .refused(let refusal):
            appendSlots.signal()
            settle(refusal)
        }
    }

    /// Whether the queue's rounds take one job at a time (`RoundsOfOne`).
    private let roundsOfOne = RoundsOfOne()

    /// Whether the queue's rounds take one job at a time now (tests).
    var takesRoundsOfOne: Bool { roundsOfOne.isOn }

    /// Rounds a clustered writer may have waiting for the changelog at once.
    static let appendsInFlight = 64
    private let appendSlots = DispatchSemaphore(value: NamespaceWriter.appendsInFlight)
    /// Rounds acknowledged strictly in order, whatever order their appends complete in.
    private let acknowledgements = Acknowledgements()

    /// One round of `jobs`: their completions and the round's commits, which the caller tells
    /// the observers (before releasing the lock on the writer's state, unless `--sync always`
    /// makes them wait for the fsync: rounds may run on several threads, one at a time, and the
    /// observers hear commits in order).
    private func run(
        _ jobs: [Job],
        in state: WriterState,
        onLoop: Bool
    ) -> (completions: [Completion], commits: [CommittedWrite]) {
        // Only a loop's rounds are measured: the thread's CPU clock is a system call.
        let start = onLoop ? Self.threadCPUTime() : 0
        let round = WriteRound(state: state)
        let completions = jobs.map { $0(round) }
        let commits = round.finish()
        if !onLoop, let shared = round.largeGroupShared { roundsOfOne.learn(groupShared: shared) }
        if onLoop, !jobs.isEmpty {
            let perJob = (Self.threadCPUTime() &- start) / UInt64(jobs.count)
            var average = jobNanoseconds.load(ordering: .relaxed)
            // A probe (a loop's round while jobs are not cheap) weighs a quarter: the few of them
            // bring a writer back within a few intervals; other rounds a sixteenth.
            let weight: UInt64 = jobsAreCheap.load(ordering: .relaxed) ? 16 : 4
            average = average - average / weight + perJob / weight
            jobNanoseconds.store(average, ordering: .relaxed)
            if average > loopJobLimit {
                // The first probe comes a whole interval after the jobs left the loop.
                if jobsAreCheap.exchange(false, ordering: .relaxed) { probedAt.store(Self.now(), ordering: .relaxed) }
            } else if average < loopJobLimit * 4 / 5 {
                jobsAreCheap.store(true, ordering: .relaxed)
            }
        }
        return (completions, commits)
    }

    static func now() -> UInt64 { nanoseconds(CLOCK_MONOTONIC) }

    /// The CPU time the calling thread has used, in nanoseconds: what a round costs the thread
    /// that runs it, without the time it spent preempted (wall time also counts other threads
    /// holding the core, which on a shared 2-core machine can be most of it).
    static func threadCPUTime() -> UInt64 { nanoseconds(CLOCK_THREAD_CPUTIME_ID) }

    private static func nanoseconds(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    private func tell(_ commits: [CommittedWrite]) {
        guard !commits.isEmpty else { return }
        commitLog?.committed()
        let observers = observers.withLock { $0 }
        for commit in commits {
            for observer in observers { observer(commit) }
        }
    }
}
