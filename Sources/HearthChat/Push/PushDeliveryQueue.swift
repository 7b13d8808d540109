import Foundation
import HearthCore
import HearthDatabase
import HearthPush
import Logging
import NIOCore
import Synchronization

/// The push queue of one namespace: plans the intents committed with messages and calls into
/// per-device pushes (`PushPlanner`, one atomic job change per page: each intent's
/// `PushContent` and `DevicePush` entries put, the intents removed), and delivers each device's
/// pushes in order through the provider.
///
/// Exactly once per device, as far as a provider's acceptance can be known: a device's next
/// push is taken only after the previous one's removal from the queue committed (after the
/// provider accepted it, or it was given up). A crash between an acceptance and that commit
/// sends that one push again at the next start, with the same id (`Hearth-Push-Id`), which a
/// receiver drops (docs/push.md).
///
/// Devices are served concurrently (at most `concurrency` attempts in flight); a device whose
/// push waits for a retry holds only its own later pushes back. The removals of the pushes done
/// in one turn are one commit, with the contents none of the queued pushes needs any more.
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
        var retry = PushRetryPolicy()
    }

    let namespace: String
    /// The event loop the queue runs on.
    nonisolated let loop: any EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }
    private let engine: NamespaceEngine
    private let provider: any PushProvider
    private let settings: Settings
    private let planner = PushPlanner()
    private let logger: Logger

    /// A device with queued pushes: its head push, loaded.
    private struct DeviceQueue {
        var uid: String
        var deviceId: String
        /// The head's key in `PushQueues.deliveries`.
        var key: [UInt8]
        /// The head's intent's key (the end of `key`).
        var intentKey: [UInt8]
        var push: DevicePush
        /// The token of the attempt in flight or last made.
        var token = ""
        var failedAttempts = 0
        var sending = false
        var retryAt: Date?
        var lastFailure: String?
    }

    /// A planned intent's content and how many of its pushes are queued.
    private struct QueuedContent {
        var content: PushContent
        var queued: Int
    }

    /// The devices with queued pushes, by `PlannedPush.deviceKey`.
    private var devices: [[UInt8]: DeviceQueue] = [:]
    /// The contents of the intents with queued pushes, by intent key.
    private var contents: [[UInt8]: QueuedContent] = [:]
    /// Devices whose head push may be sent now, in the order they became ready.
    private var ready: [[UInt8]] = []
    private var readyStart = 0
    private var inFlight = 0
    /// Devices whose head push is done (sent or given up), its removal not committed yet.
    private var finishedHeads: [[UInt8]] = []
    /// Whether a `removeFinishedHeads()` is queued.
    private var removalQueued = false
    private var figures = PushQueueFigures()
    private var planning = false
    /// The key of the last intent planned: the next page is read after it. The intents'
    /// removals leave tombstones in LevelDB until a compaction drops them, and intents are keyed
    /// in commit order, so reading from the queue's start would step over every one planned
    /// since (a scan that grows with the load).
    private var plannedThrough: [UInt8]?
    /// Whether `start()` loaded the pushes an earlier run left; planning waits for it (a device's
    /// first head must be its oldest queued push, and each queued push is counted once).
    private var loaded = false
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
        self.engine = engine
        self.provider = provider
        self.settings = settings
        self.logger = logger
    }

    // MARK: Life

    /// Loads every device's head push and the contents an earlier run left, plans the intents
    /// left, and starts delivering.
    func start() async throws {
        try loadContents()
        try loadDevices()
        try removeUnneededContents()
        loaded = true
        await plan()
        pump()
    }

    /// Stops taking pushes; waits up to `grace` for the attempts in flight (whose outcomes
    /// are still committed).
    func stop(grace: Duration = .seconds(2)) async {
        stopped = true
        let deadline = ContinuousClock.now + grace
        while inFlight > 0 || removalQueued, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Called after a commit that queued jobs (on the namespace's writer: only hands on).
    nonisolated func jobsQueued() {
        guard !wakePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Task { await self.plan() }
    }

    /// The queue's figures now.
    func currentFigures() -> PushQueueFigures {
        var current = figures
        current.intents =
            (try? engine.jobCount(
                in: PushQueues.intents,
                after: plannedThrough,
                limit: PushQueueFigures.maxIntentsCounted
            ))
            ?? 0
        let heads = devices.values.map { queue in (queue, createdAt: contents[queue.intentKey]?.content.createdAt ?? 0)
        }
        .sorted { $0.createdAt < $1.createdAt }
        current.oldestCreatedAt = heads.first?.createdAt
        current.devices = heads.prefix(PushQueueFigures.maxDevicesShown).map { queue, createdAt in
            PushQueueFigures.Device(
                uid: queue.uid,
                deviceId: queue.deviceId,
                pushId: PlannedPush.id(namespace: namespace, intentKey: queue.intentKey, index: queue.push.index),
                createdAt: createdAt,
                failedAttempts: queue.failedAttempts,
                retryAt: queue.retryAt.map { $0.timeIntervalSince1970 * 1000 },
                lastFailure: queue.lastFailure
            )
        }
        return current
    }

    // MARK: Loading and planning

    /// Every content queued (their counts are made by `loadDevices()`).
    private func loadContents() throws {
        var after: [UInt8]? = nil
        while true {
            let page = try engine.jobs(in: PushQueues.contents, after: after, limit: 512)
            guard let last = page.last else { return }
            var unreadable: [JobChange] = []
            for job in page {
                if let content = PushContent(decoding: job.payload) {
                    contents[job.key] = QueuedContent(content: content, queued: 0)
                } else {
                    unreadable.append(.remove(queue: PushQueues.contents, key: job.key))
                }
            }
            if !unreadable.isEmpty {
                logger.error("unreadable push contents were removed", metadata: ["hearth.count": "\(unreadable.count)"])
                try engine.changeJobs(unreadable)
            }
            after = last.key
        }
    }

    /// Every device's first queued push, and how many are queued of each content. A push
    /// queued whole by an earlier version is rewritten as its entry and content.
    private func loadDevices() throws {
        var after: [UInt8]? = nil
        while true {
            let page = try engine.jobs(in: PushQueues.deliveries, after: after, limit: 512)
            guard let last = page.last else { return }
            var changes: [JobChange] = []
            var removed = 0
            for job in page {
                guard let device = PlannedPush.device(of: job.key) else {
                    changes.append(.remove(queue: PushQueues.deliveries, key: job.key))
                    removed += 1
                    continue
                }
                let intentKey = Array(job.key[device.prefix.count...])
                var push = DevicePush(decoding: job.payload)
                if push == nil, let converted = PlannedPush(legacyPayload: job.payload)?.converted {
                    if contents[intentKey] == nil {
                        contents[intentKey] = QueuedContent(content: converted.content, queued: 0)
                        changes.append(
                            .put(queue: PushQueues.contents, key: intentKey, payload: converted.content.encoded())
                        )
                    }
                    changes.append(.put(queue: PushQueues.deliveries, key: job.key, payload: converted.entry.encoded()))
                    push = converted.entry
                }
                guard let push, contents[intentKey] != nil else {
                    changes.append(.remove(queue: PushQueues.deliveries, key: job.key))
                    removed += 1
                    continue
                }
                contents[intentKey]?.queued += 1
                figures.queued += 1
                if devices[device.prefix] == nil {
                    becomeHead(device.prefix, uid: device.uid, deviceId: device.deviceId, key: job.key, push: push)
                }
            }
            if removed > 0 {
                logger.error("unreadable queued pushes were removed", metadata: ["hearth.count": "\(removed)"])
            }
            try engine.changeJobs(changes)
            after = last.key
        }
    }

    /// Removes the contents no queued push needs (a crash cannot leave one: a content goes
    /// with its last push; but an unreadable push removed at the start can).
    private func removeUnneededContents() throws {
        let unneeded = contents.filter { $0.value.queued == 0 }.map(\.key)
        for key in unneeded { contents[key] = nil }
        try engine.changeJobs(unneeded.map { .remove(queue: PushQueues.contents, key: $0) })
    }

    /// Plans every queued intent, page by page, until none is left. Before `start()` loaded the
    /// queue it does nothing: a commit heard that early leaves `wakePending` set, and `start()`
    /// plans its intent.
    private func plan() async {
        guard loaded, !planning else { return }
        planning = true
        defer { planning = false }
        repeat {
            wakePending.store(false, ordering: .sequentiallyConsistent)
            do {
                while !stopped, try planPage() {}
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

    /// Plans one page of intents; false when there was none.
    private func planPage() throws -> Bool {
        let intents = try engine.jobs(in: PushQueues.intents, after: plannedThrough, limit: settings.planningPage)
        guard let last = intents.last else { return false }
        let planner = planner
        let plans = try engine.readAsServerSynchronously { snapshot in
            intents.map { job in
                (
                    key: job.key,
                    plan: PushIntent(decoding: job.payload).flatMap { planner.plan($0, key: job.key, in: snapshot) }
                )
            }
        }
        var changes: [JobChange] = []
        for intent in plans {
            if let plan = intent.plan {
                changes.append(.put(queue: PushQueues.contents, key: intent.key, payload: plan.content.encoded()))
                for push in plan.pushes {
                    changes.append(.put(queue: PushQueues.deliveries, key: push.key, payload: push.push.encoded()))
                }
            }
            changes.append(.remove(queue: PushQueues.intents, key: intent.key))
        }
        try engine.changeJobs(changes)
        plannedThrough = last.key
        for intent in plans {
            guard let plan = intent.plan else { continue }
            contents[intent.key] = QueuedContent(content: plan.content, queued: plan.pushes.count)
            figures.queued += plan.pushes.count
            for push in plan.pushes {
                guard let device = PlannedPush.device(of: push.key), devices[device.prefix] == nil else { continue }
                becomeHead(device.prefix, uid: device.uid, deviceId: device.deviceId, key: push.key, push: push.push)
            }
        }
        pump()
        return true
    }

    private func becomeHead(_ prefix: [UInt8], uid: String, deviceId: String, key: [UInt8], push: DevicePush) {
        devices[prefix] = DeviceQueue(
            uid: uid,
            deviceId: deviceId,
            key: key,
            intentKey: Array(key[prefix.count...]),
            push: push
        )
        ready.append(prefix)
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
            guard var queue = devices[prefix], !queue.sending else { continue }
            // Waiting for its retry (its timer puts it back when due).
            if let at = queue.retryAt, at.timeIntervalSinceNow > 0.05 { continue }
            queue.sending = true
            queue.retryAt = nil
            devices[prefix] = queue
            starting.append(prefix)
        }
        guard !starting.isEmpty else { return }
        let pushes = currentPushes(of: starting)
        for (prefix, push) in zip(starting, pushes) {
            guard let queue = devices[prefix] else { continue }
            // A device removed (signed out) or registered again with another token since the
            // push was planned gets nothing more that was planned for that token.
            guard let push else {
                figures.dropped["device_removed", default: 0] += 1
                finishHead(of: prefix)
                continue
            }
            inFlight += 1
            devices[prefix]?.token = push.token
            let key = queue.key
            let message = push.message
            let provider = provider
            Task {
                let outcome = await provider.send(message)
                await self.attempted(prefix, key: key, outcome: outcome)
            }
        }
    }

    /// Each device's head push as it is sent now: to the device's token, when that is still
    /// the token it was planned for (`devices/$uid/$deviceId`, read in one snapshot); nil when
    /// it is not, or the store cannot be read (the push is dropped as a removed device's would
    /// be: none is sent twice).
    private func currentPushes(of prefixes: [[UInt8]]) -> [PlannedPush?] {
        let heads = prefixes.map { devices[$0] }
        let found = try? engine.readAsServerSynchronously { snapshot in
            heads.map { head in
                head.flatMap { snapshot.node(at: DataPath("devices", $0.uid, $0.deviceId)) }
            }
        }
        guard let found else { return heads.map { _ in nil } }
        return zip(heads, found).map { head, device in
            guard let head, let device, let content = contents[head.intentKey]?.content,
                let token = device.string("token"), DevicePush.hash(token: token) == head.push.tokenHash,
                let platform = device.string("platform"), PushPlanner.platforms.contains(platform)
            else { return nil }
            return PlannedPush(
                head.push,
                of: content,
                intentKey: head.intentKey,
                namespace: namespace,
                uid: head.uid,
                deviceId: head.deviceId,
                token: token,
                platform: platform
            )
        }
    }

    /// Acts on an attempt's outcome: the push removed (accepted, rejected, expired, the device
    /// unregistered) and the device's next one taken, or a retry scheduled.
    private func attempted(_ prefix: [UInt8], key: [UInt8], outcome: PushOutcome) async {
        inFlight -= 1
        guard var queue = devices[prefix], queue.key == key else { return pump() }
        switch outcome {
        case .accepted:
            figures.sent += 1
            finishHead(of: prefix)
        case .rejected(let reason):
            count(reason, dropped: true)
            finishHead(of: prefix)
        case .unregistered(let reason):
            count(reason, dropped: true)
            await removeDevice(uid: queue.uid, deviceId: queue.deviceId, token: queue.token)
            do {
                try dropDevice(prefix)
            } catch {
                stopWriting(error)
            }
        case .retry(let reason, let hint):
            count(reason, dropped: false)
            queue.failedAttempts += 1
            queue.lastFailure = reason.rawValue
            let createdAt = contents[queue.intentKey]?.content.createdAt ?? 0
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
                Task {
                    try? await Task.sleep(for: .milliseconds(Int(wait * 1000)))
                    await self.retryDue(prefix, key: key)
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

    private func retryDue(_ prefix: [UInt8], key: [UInt8]) {
        guard let queue = devices[prefix], queue.key == key, !queue.sending, queue.retryAt != nil else { return }
        ready.append(prefix)
        pump()
    }

    private func count(_ reason: PushFailureReason, dropped: Bool) {
        figures.failed[reason.rawValue, default: 0] += 1
        if dropped { figures.dropped[reason.rawValue, default: 0] += 1 }
    }

    /// Marks the device's head push done: its removal is committed with the other heads done
    /// meanwhile (`removeFinishedHeads()`, queued behind the outcomes already waiting), and
    /// until then the device takes nothing more.
    private func finishHead(of prefix: [UInt8]) {
        guard devices[prefix] != nil else { return }
        devices[prefix]?.sending = true
        finishedHeads.append(prefix)
        guard !removalQueued else { return }
        removalQueued = true
        Task { self.removeFinishedHeads() }
    }

    /// The removals of pushes, with each content whose last queued push they remove.
    private func removals(of pushes: [(key: [UInt8], intentKey: [UInt8])]) -> [JobChange] {
        var releasing: [[UInt8]: Int] = [:]
        var changes: [JobChange] = []
        for push in pushes {
            changes.append(.remove(queue: PushQueues.deliveries, key: push.key))
            releasing[push.intentKey, default: 0] += 1
        }
        for (intentKey, count) in releasing where (contents[intentKey]?.queued ?? 0) <= count {
            changes.append(.remove(queue: PushQueues.contents, key: intentKey))
        }
        return changes
    }

    /// Counts down the contents of removed pushes (after their removals committed).
    private func removed(_ pushes: [(key: [UInt8], intentKey: [UInt8])]) {
        figures.queued -= pushes.count
        for push in pushes {
            guard var queued = contents[push.intentKey] else { continue }
            queued.queued -= 1
            contents[push.intentKey] = queued.queued > 0 ? queued : nil
        }
    }

    /// Removes the heads done since the last call (one commit), then takes each device's next
    /// push, if any (one read).
    private func removeFinishedHeads() {
        removalQueued = false
        let heads = finishedHeads.compactMap { prefix in
            devices[prefix].map { (prefix: prefix, key: $0.key, intentKey: $0.intentKey) }
        }
        finishedHeads = []
        guard !heads.isEmpty else { return }
        do {
            let pushes = heads.map { (key: $0.key, intentKey: $0.intentKey) }
            try engine.changeJobs(removals(of: pushes))
            removed(pushes)
            let next = try engine.nextJobs(in: PushQueues.deliveries, after: heads.map(\.key))
            for (head, next) in zip(heads, next) {
                guard let queue = devices.removeValue(forKey: head.prefix) else { continue }
                guard let next, next.key.starts(with: head.prefix) else { continue }
                try takeNext(head.prefix, uid: queue.uid, deviceId: queue.deviceId, job: next)
            }
        } catch {
            stopWriting(error)
        }
        pump()
    }

    /// Makes `job` the device's head, or removes it and reads on when it is unreadable (its
    /// content gone).
    private func takeNext(_ prefix: [UInt8], uid: String, deviceId: String, job: StoredJob) throws {
        var job = job
        while true {
            let intentKey = Array(job.key[prefix.count...])
            if let push = DevicePush(decoding: job.payload), contents[intentKey] != nil {
                return becomeHead(prefix, uid: uid, deviceId: deviceId, key: job.key, push: push)
            }
            let pushes = [(key: job.key, intentKey: intentKey)]
            try engine.changeJobs(removals(of: pushes))
            removed(pushes)
            guard let next = try engine.jobs(in: PushQueues.deliveries, after: job.key, limit: 1).first,
                next.key.starts(with: prefix)
            else { return }
            job = next
        }
    }

    /// Removes every queued push of a device the provider reported unregistered.
    private func dropDevice(_ prefix: [UInt8]) throws {
        devices[prefix] = nil
        var after: [UInt8]? = nil
        while true {
            let page = try engine.jobs(in: PushQueues.deliveries, after: after ?? prefix, limit: 256)
                .filter { $0.key.starts(with: prefix) }
            guard let last = page.last else { return }
            let pushes = page.map { (key: $0.key, intentKey: Array($0.key[prefix.count...])) }
            try engine.changeJobs(removals(of: pushes))
            removed(pushes)
            after = last.key
        }
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
