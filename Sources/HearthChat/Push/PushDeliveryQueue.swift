import Foundation
import HearthCore
import HearthDatabase
import HearthNIO
import HearthPush
import Logging
import NIOCore
import Synchronization

/// The push queue of one namespace: plans the intents committed with messages and calls
/// (`PushPlanner`; one atomic job change per page puts the `PlannedIntent` records and removes
/// the intents), and delivers each device's pushes in order through the provider.
///
/// Exactly once per device, as far as a provider's acceptance can be known: a device's next
/// push is taken only after the previous one was marked done in a commit (its bit in the
/// intent's `PushDoneSet`, after the provider accepted it or it was given up). A crash between
/// an acceptance and that commit sends that one push again at the next start, with the same id
/// (`Hearth-Push-Id`), which a receiver drops (docs/push.md).
///
/// The planned intents are held in memory (up to `Settings.maxPendingInMemory` pushes not done;
/// more wait in the store), with each device's pushes in commit order. Devices are served
/// concurrently (at most `concurrency` attempts in flight); a device whose push waits for a
/// retry holds only its own later pushes back. The pushes finished in one turn of the queue are
/// marked done in one commit.
///
/// The queue runs on `loop`, the push service's own event loop (its provider's HTTP client runs
/// there too), whose thread has a low priority: planning and delivering use the CPU that serving
/// leaves (docs/decisions/0018-push-delivery-beside-serving.md). Its reads and job changes are
/// synchronous LevelDB calls on that thread.
actor PushDeliveryQueue {
    /// The settings of a queue.
    struct Settings: Sendable {
        /// The most attempts in flight at once.
        var concurrency = 32
        /// Intents planned per job change.
        var planningPage = 64
        /// The most pushes not done held in memory; planned intents past them wait in the store,
        /// intents past them unplanned.
        var maxPendingInMemory = 1_000_000
        var retry = PushRetryPolicy()
    }

    let namespace: String
    /// The event loop the queue runs on.
    nonisolated let loop: any EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }
    /// The preference of the queue's tasks: their nonisolated work (the provider's) runs on
    /// `loop` too.
    private nonisolated let tasks: EventLoopTaskExecutor
    private let engine: NamespaceEngine
    private let provider: any PushProvider
    private let settings: Settings
    private let planner = PushPlanner()
    private let jobs: PushJobWriter
    private let logger: Logger

    /// A planned intent in memory.
    private struct Record {
        var planned: PlannedIntent
        var done: PushDoneSet
        var remaining: Int
    }

    /// A push not done: its intent and its place there.
    private struct Pending {
        var intentKey: [UInt8]
        var index: Int
    }

    /// A device with pushes not done, its head first.
    private struct DeviceQueue {
        var pending = CircularBuffer<Pending>()
        /// The token of the attempt in flight or last made.
        var token = ""
        var failedAttempts = 0
        /// Whether the head is being sent, or is done and its commit not made yet.
        var sending = false
        var retryAt: Date?
        var lastFailure: String?

        /// Drops the head (done and committed) and starts afresh with the next push; false
        /// when none is left.
        mutating func takeNext() -> Bool {
            pending.removeFirst()
            sending = false
            failedAttempts = 0
            retryAt = nil
            lastFailure = nil
            return !pending.isEmpty
        }
    }

    /// The planned intents in memory, by intent key.
    private var records: [[UInt8]: Record] = [:]
    /// The devices with pushes not done, by `PushDeviceKey`.
    private var devices: [[UInt8]: DeviceQueue] = [:]
    /// Pushes not done in `records`.
    private var pending = 0
    /// Devices whose head push may be sent now, in the order they became ready.
    private var ready: [[UInt8]] = []
    private var readyStart = 0
    private var inFlight = 0
    /// Devices whose head push is done (sent or given up), not committed yet.
    private var finishedHeads: [[UInt8]] = []
    /// Whether a `commitFinishedHeads()` is queued.
    private var commitQueued = false
    private var figures = PushQueueFigures()
    private var refilling = false
    /// The key of the last intent planned: the next page is read after it (not over the
    /// tombstones of every intent planned since the last compaction).
    private var plannedThrough: [UInt8]?
    /// The key of the last planned intent loaded; nil when all are (after the start's load).
    private var loadedThrough: [UInt8]?
    /// Whether planned intents wait in the store (left by an earlier run past the memory bound).
    private var unloaded = true
    /// Whether the last refill stopped at `maxPendingInMemory`: intents may wait.
    private var capped = false
    /// Whether `start()` ran; planning waits for it (each device's pushes must be loaded in
    /// commit order, the earlier run's first).
    private var started = false
    private var stopped = false
    /// Set by a commit that queued jobs; cleared when planning reads the intents again.
    private nonisolated let wakePending = Atomic<Bool>(false)

    init(
        namespace: String,
        loop: any EventLoop,
        engine: NamespaceEngine,
        provider: any PushProvider,
        settings: Settings,
        logger: Logger
    ) {
        self.namespace = namespace
        self.loop = loop
        tasks = EventLoopTaskExecutor(eventLoop: loop)
        self.engine = engine
        jobs = PushJobWriter(engine: engine)
        self.provider = provider
        self.settings = settings
        self.logger = logger
    }

    // MARK: Life

    /// Turns pushes an earlier version queued into planned intents, loads the planned intents
    /// an earlier run left, plans the intents left, and starts delivering.
    func start() async throws {
        try convertLegacyPushes()
        try removeOrphanDoneSets()
        started = true
        await refill()
        pump()
    }

    /// Stops taking pushes; waits up to `grace` for the attempts in flight (whose outcomes
    /// are still committed).
    func stop(grace: Duration = .seconds(2)) async {
        stopped = true
        let deadline = ContinuousClock.now + grace
        while inFlight > 0 || commitQueued, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Called after a commit that queued jobs (on the namespace's writer: only hands on).
    nonisolated func jobsQueued() {
        guard !wakePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Task(executorPreference: tasks) { await self.refill() }
    }

    /// The queue's figures now.
    func currentFigures() -> PushQueueFigures {
        var current = figures
        current.queued = pending
        let limit = PushQueueFigures.maxIntentsCounted
        var waiting = (try? engine.jobCount(in: PushQueues.intents, after: plannedThrough, limit: limit)) ?? 0
        if unloaded {
            waiting += (try? engine.jobCount(in: PushQueues.planned, after: loadedThrough, limit: limit)) ?? 0
        }
        current.intents = min(waiting, limit)
        var heads: [(uid: String, deviceId: String, pushId: String, createdAt: Double, queue: DeviceQueue)] = []
        for queue in devices.values {
            guard let head = queue.pending.first, let record = records[head.intentKey] else { continue }
            let push = record.planned.pushes[head.index]
            let id = PlannedIntent.pushId(namespace: namespace, intentKey: head.intentKey, number: push.number)
            heads.append((push.uid, push.deviceId, id, record.planned.content.createdAt, queue))
        }
        heads.sort { $0.createdAt < $1.createdAt }
        current.oldestCreatedAt = heads.first?.createdAt
        current.devices = heads.prefix(PushQueueFigures.maxDevicesShown).map { head in
            PushQueueFigures.Device(
                uid: head.uid,
                deviceId: head.deviceId,
                pushId: head.pushId,
                createdAt: head.createdAt,
                failedAttempts: head.queue.failedAttempts,
                retryAt: head.queue.retryAt.map { $0.timeIntervalSince1970 * 1000 },
                lastFailure: head.queue.lastFailure
            )
        }
        return current
    }

    // MARK: Loading and planning

    /// Loads planned intents and plans new ones while fewer than `maxPendingInMemory` pushes are
    /// held. Before `start()` it does nothing: a commit heard that early leaves `wakePending`
    /// set, and `start()` refills.
    private func refill() async {
        guard started, !refilling else { return }
        refilling = true
        defer { refilling = false }
        repeat {
            wakePending.store(false, ordering: .sequentiallyConsistent)
            do {
                while !stopped, pending < settings.maxPendingInMemory, try refillPage() {}
                capped = pending >= settings.maxPendingInMemory
            } catch {
                guard !stopped else { return }
                logger.error(
                    "push intents could not be planned; trying again in 1 s",
                    metadata: ["hearth.error": "\(error)"]
                )
                try? await Task.sleep(for: .seconds(1))
                wakePending.store(true, ordering: .sequentiallyConsistent)
            }
        } while !stopped && wakePending.load(ordering: .sequentiallyConsistent)
    }

    /// Loads one page of planned intents, or else plans one page of intents; false when there
    /// was neither.
    private func refillPage() throws -> Bool {
        if unloaded {
            let page = try engine.jobs(in: PushQueues.planned, after: loadedThrough, limit: 256)
            if let last = page.last {
                try load(page)
                loadedThrough = last.key
                return true
            }
            unloaded = false
        }
        let intents = try engine.jobs(in: PushQueues.intents, after: plannedThrough, limit: settings.planningPage)
        guard let last = intents.last else { return false }
        let planner = planner
        let planned = try engine.readAsServerSynchronously { snapshot in
            planner.plan(intents.map { PushIntent(decoding: $0.payload) }, in: snapshot)
        }
        let plans = zip(intents, planned).map { (key: $0.key, planned: $1) }
        var changes: [JobChange] = []
        for intent in plans {
            if let planned = intent.planned {
                changes.append(.put(queue: PushQueues.planned, key: intent.key, payload: planned.encoded()))
            }
            changes.append(.remove(queue: PushQueues.intents, key: intent.key))
        }
        try jobs.apply(changes)
        plannedThrough = last.key
        for intent in plans {
            guard let planned = intent.planned else { continue }
            add(planned, at: intent.key, done: PushDoneSet(count: planned.pushes.count))
        }
        pump()
        return true
    }

    /// Adds planned intents read from the store, with their done sets.
    private func load(_ page: [StoredJob]) throws {
        let doneSets = try engine.jobPayloads(in: PushQueues.done, at: page.map(\.key))
        var changes: [JobChange] = []
        for (job, doneBytes) in zip(page, doneSets) {
            guard let planned = PlannedIntent(decoding: job.payload) else {
                logger.error("an unreadable planned push intent was removed")
                changes += [
                    .remove(queue: PushQueues.planned, key: job.key), .remove(queue: PushQueues.done, key: job.key),
                ]
                continue
            }
            let done = doneBytes.map { PushDoneSet(bytes: $0, count: planned.pushes.count) }
            if !add(planned, at: job.key, done: done ?? PushDoneSet(count: planned.pushes.count)) {
                changes += [
                    .remove(queue: PushQueues.planned, key: job.key), .remove(queue: PushQueues.done, key: job.key),
                ]
            }
        }
        try jobs.apply(changes)
    }

    /// Holds a planned intent's pushes not done, each at the end of its device's queue; false
    /// when all are done.
    @discardableResult
    private func add(_ planned: PlannedIntent, at key: [UInt8], done: PushDoneSet) -> Bool {
        var remaining = 0
        for (index, push) in planned.pushes.enumerated() where !done.contains(index) {
            remaining += 1
            let prefix = PushDeviceKey.of(uid: push.uid, deviceId: push.deviceId)
            // In place: a copy of the queue would copy its buffer.
            devices[prefix, default: DeviceQueue()].pending.append(Pending(intentKey: key, index: index))
            if devices[prefix]?.pending.count == 1 { ready.append(prefix) }
        }
        guard remaining > 0 else { return false }
        records[key] = Record(planned: planned, done: done, remaining: remaining)
        pending += remaining
        return true
    }

    /// Rewrites the pushes queued whole by an earlier version (`PushQueues.legacyDeliveries`)
    /// as planned intents, keeping their ids, in one commit.
    private func convertLegacyPushes() throws {
        var converted: [[UInt8]: PlannedIntent] = [:]
        var changes: [JobChange] = []
        var unreadable = 0
        try forEachPage(of: PushQueues.legacyDeliveries) { page in
            for job in page {
                changes.append(.remove(queue: PushQueues.legacyDeliveries, key: job.key))
                guard let device = PushDeviceKey.device(of: job.key),
                    let legacy = LegacyQueuedPush(payload: job.payload)?.converted
                else {
                    unreadable += 1
                    continue
                }
                let intentKey = Array(job.key[device.prefix.count...])
                converted[intentKey, default: PlannedIntent(content: legacy.content, pushes: [])].pushes
                    .append(legacy.push)
            }
        }
        guard !changes.isEmpty else { return }
        if unreadable > 0 {
            logger.error("unreadable queued pushes were removed", metadata: ["hearth.count": "\(unreadable)"])
        }
        for (key, planned) in converted {
            changes.append(.put(queue: PushQueues.planned, key: key, payload: planned.encoded()))
        }
        try jobs.apply(changes)
    }

    /// Removes the done sets whose planned intent is gone (`hearth chat check` reports them;
    /// the queue itself never leaves one: both go in one commit).
    private func removeOrphanDoneSets() throws {
        try forEachPage(of: PushQueues.done) { page in
            let planned = try engine.jobPayloads(in: PushQueues.planned, at: page.map(\.key))
            try jobs.apply(
                zip(page, planned).filter { $0.1 == nil }.map { .remove(queue: PushQueues.done, key: $0.0.key) }
            )
        }
    }

    /// Calls `body` with each page of `queue`'s jobs, in key order, each page read after the
    /// last one's last key (so `body` may remove what it was given).
    private func forEachPage(of queue: String, _ body: ([StoredJob]) throws -> Void) throws {
        var after: [UInt8]? = nil
        while true {
            let page = try engine.jobs(in: queue, after: after, limit: 512)
            guard let last = page.last else { return }
            try body(page)
            after = last.key
        }
    }

    // MARK: Delivering

    /// Starts attempts at ready devices' head pushes while there is room. The devices are read
    /// in one snapshot for all the pushes it starts.
    private func pump() {
        guard !stopped else { return }
        var starting: [[UInt8]] = []
        while inFlight + starting.count < settings.concurrency, readyStart < ready.count {
            let prefix = ready[readyStart]
            readyStart += 1
            if readyStart > 1024, readyStart * 2 > ready.count {
                ready.removeFirst(readyStart)
                readyStart = 0
            }
            guard var queue = devices[prefix], !queue.sending, !queue.pending.isEmpty else { continue }
            // Waiting for its retry (its timer puts it back when due).
            if let at = queue.retryAt, at.timeIntervalSinceNow > 0.05 { continue }
            queue.sending = true
            queue.retryAt = nil
            devices[prefix] = queue
            starting.append(prefix)
        }
        guard !starting.isEmpty else { return }
        let messages = currentPushes(of: starting)
        for (prefix, message) in zip(starting, messages) {
            // A device removed (signed out) or registered again with another token since the
            // push was planned gets nothing more that was planned for that token.
            guard let message else {
                figures.dropped["device_removed", default: 0] += 1
                finishHead(of: prefix)
                continue
            }
            inFlight += 1
            devices[prefix]?.token = message.token
            let provider = provider
            Task(executorPreference: tasks) {
                let outcome = await provider.send(message)
                await self.attempted(prefix, outcome: outcome)
            }
        }
    }

    /// Each device's head push as it is sent now: to the device's token, when that is still
    /// the token it was planned for (`devices/$uid/$deviceId`, read in one snapshot); nil when
    /// it is not, or the store cannot be read (the push is dropped as a removed device's would
    /// be: none is sent twice).
    private func currentPushes(of prefixes: [[UInt8]]) -> [PushMessage?] {
        let heads: [(push: PlannedIntent.Push, content: PushContent, intentKey: [UInt8])?] = prefixes.map { prefix in
            guard let head = devices[prefix]?.pending.first, let record = records[head.intentKey] else { return nil }
            return (record.planned.pushes[head.index], record.planned.content, head.intentKey)
        }
        let found = try? engine.readAsServerSynchronously { snapshot in
            heads.map { head in head.flatMap { snapshot.node(at: DataPath("devices", $0.push.uid, $0.push.deviceId)) } }
        }
        guard let found else { return heads.map { _ in nil } }
        return zip(heads, found).map { head, device in
            guard let head, let device,
                let token = device.string("token"), PlannedIntent.hash(token: token) == head.push.tokenHash,
                let platform = device.string("platform").flatMap(PushPlatform.init(rawValue:))
            else { return nil }
            return head.push.message(
                of: head.content,
                intentKey: head.intentKey,
                namespace: namespace,
                token: token,
                platform: platform
            )
        }
    }

    /// Acts on an attempt's outcome: the push marked done (accepted, rejected, expired, the
    /// device unregistered) and the device's next one taken, or a retry scheduled.
    private func attempted(_ prefix: [UInt8], outcome: PushOutcome) async {
        inFlight -= 1
        guard var queue = devices[prefix], let head = queue.pending.first else { return pump() }
        switch outcome {
        case .accepted:
            figures.sent += 1
            finishHead(of: prefix)
        case .rejected(let reason):
            count(reason, dropped: true)
            finishHead(of: prefix)
        case .unregistered(let reason):
            count(reason, dropped: true)
            if let push = records[head.intentKey]?.planned.pushes[head.index] {
                await removeDevice(uid: push.uid, deviceId: push.deviceId, token: queue.token)
            }
            do {
                try dropDevice(prefix)
            } catch {
                stopWriting(error)
            }
        case .retry(let reason, let hint):
            count(reason, dropped: false)
            queue.failedAttempts += 1
            queue.lastFailure = reason.rawValue
            let createdAt = records[head.intentKey]?.planned.content.createdAt ?? 0
            let decision = settings.retry.decision(
                afterFailedAttempts: queue.failedAttempts,
                createdAt: Date(timeIntervalSince1970: createdAt / 1000),
                now: Date(),
                hint: hint
            )
            switch decision {
            case .expire:
                figures.dropped[PushFailureReason.expired.rawValue, default: 0] += 1
                finishHead(of: prefix)
            case .retry(let at):
                queue.sending = false
                queue.retryAt = at
                devices[prefix] = queue
                let wait = max(0, at.timeIntervalSinceNow)
                Task(executorPreference: tasks) {
                    try? await Task.sleep(for: .milliseconds(Int(wait * 1000)))
                    await self.retryDue(prefix)
                }
            }
        }
        pump()
    }

    /// The queue cannot be written (the store closed, or failed): nothing more is sent, so no
    /// push goes out twice.
    private func stopWriting(_ error: any Error) {
        if !stopped {
            logger.error("the push queue stopped: it cannot be written", metadata: ["hearth.error": "\(error)"])
        }
        stopped = true
    }

    private func retryDue(_ prefix: [UInt8]) {
        guard let queue = devices[prefix], !queue.sending, queue.retryAt != nil else { return }
        ready.append(prefix)
        pump()
    }

    private func count(_ reason: PushFailureReason, dropped: Bool) {
        figures.failed[reason.rawValue, default: 0] += 1
        if dropped { figures.dropped[reason.rawValue, default: 0] += 1 }
    }

    /// Marks the device's head push done: the mark is committed with the other heads done
    /// meanwhile (`commitFinishedHeads()`, queued behind the outcomes already waiting), and
    /// until then the device takes nothing more.
    private func finishHead(of prefix: [UInt8]) {
        guard devices[prefix] != nil else { return }
        devices[prefix]?.sending = true
        finishedHeads.append(prefix)
        guard !commitQueued else { return }
        commitQueued = true
        Task(executorPreference: tasks) { await self.commitFinishedHeads() }
    }

    /// Marks `done` pushes done in one commit: each touched intent's done set written, or the
    /// intent removed with it when none is left. Then forgets them.
    private func markDone(_ done: [Pending]) throws {
        var touched: [[UInt8]: Record] = [:]
        for push in done {
            guard var record = touched[push.intentKey] ?? records[push.intentKey], !record.done.contains(push.index)
            else { continue }
            record.done.insert(push.index)
            record.remaining -= 1
            touched[push.intentKey] = record
        }
        var changes: [JobChange] = []
        for (key, record) in touched {
            if record.remaining == 0 {
                changes.append(.remove(queue: PushQueues.planned, key: key))
                changes.append(.remove(queue: PushQueues.done, key: key))
            } else {
                changes.append(.put(queue: PushQueues.done, key: key, payload: record.done.bytes))
            }
        }
        try jobs.apply(changes)
        for (key, record) in touched {
            pending -= records[key].map { $0.remaining - record.remaining } ?? 0
            records[key] = record.remaining == 0 ? nil : record
        }
    }

    /// Commits the heads done since the last call (one commit), then takes each device's next
    /// push, if any.
    private func commitFinishedHeads() {
        commitQueued = false
        let heads = finishedHeads.compactMap { prefix in devices[prefix]?.pending.first.map { (prefix, $0) } }
        finishedHeads = []
        guard !heads.isEmpty else { return }
        do {
            try markDone(heads.map(\.1))
        } catch {
            return stopWriting(error)
        }
        for (prefix, _) in heads {
            // In place: a copy of the queue would copy its buffer.
            guard let more = devices[prefix]?.takeNext() else { continue }
            if more {
                ready.append(prefix)
            } else {
                devices[prefix] = nil
            }
        }
        pump()
        // Memory was full: what waits in the store is taken up once half of it is free.
        if capped, pending < settings.maxPendingInMemory / 2 {
            capped = false
            Task(executorPreference: tasks) { await self.refill() }
        }
    }

    /// Marks every push not done of a device the provider reported unregistered done, in one
    /// commit.
    private func dropDevice(_ prefix: [UInt8]) throws {
        guard let queue = devices[prefix] else { return }
        try markDone(Array(queue.pending))
        devices[prefix] = nil
    }

    /// Deletes `devices/$uid/$deviceId` when it still holds the token the provider refused (a
    /// device registered again with a new token stays).
    private func removeDevice(uid: String, deviceId: String, token: String) async {
        let device = DataPath("devices", uid, deviceId)
        do {
            _ = try await engine.writeAsServer(Write(.set(device, NewValue(node: nil)))) { snapshot in
                snapshot.node(at: device.child(ChildKey("token"))) == .leaf(.string(token), priority: nil)
            }
        } catch {
            logger.error(
                "an unregistered device could not be removed",
                metadata: ["hearth.uid": "\(uid)", "hearth.device": "\(deviceId)", "hearth.error": "\(error)"]
            )
        }
    }
}
