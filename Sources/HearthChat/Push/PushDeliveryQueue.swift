import Foundation
import HearthCore
import HearthDatabase
import HearthPush
import Logging
import NIOCore
import Synchronization

/// The push queue of one namespace: plans the intents committed with messages and calls into
/// per-device pushes (`PushPlanner`, one atomic job change per page: the pushes put, the
/// intents removed), and delivers each device's pushes in order through the provider.
///
/// Exactly once per device, as far as a provider's acceptance can be known: a device's next
/// push is taken only after the previous one's removal from the queue committed (after the
/// provider accepted it, or it was given up). A crash between an acceptance and that commit
/// sends that one push again at the next start, with the same id (`Hearth-Push-Id`), which a
/// receiver drops (docs/push.md).
///
/// Devices are served concurrently (at most `concurrency` attempts in flight); a device whose
/// push waits for a retry holds only its own later pushes back.
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
        var key: [UInt8]
        var push: PlannedPush
        var failedAttempts = 0
        var sending = false
        var retryAt: Date?
        var lastFailure: String?
    }

    /// The devices with queued pushes, by `PlannedPush.deviceKey`.
    private var devices: [[UInt8]: DeviceQueue] = [:]
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

    /// Loads every device's head push left by an earlier run, plans the intents left, and
    /// starts delivering.
    func start() async throws {
        try loadDevices()
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
        let heads = devices.values.sorted { $0.push.createdAt < $1.push.createdAt }
        current.oldestCreatedAt = heads.first?.push.createdAt
        current.devices = heads.prefix(PushQueueFigures.maxDevicesShown).map { queue in
            PushQueueFigures.Device(
                uid: queue.push.uid,
                deviceId: queue.push.deviceId,
                pushId: queue.push.id,
                createdAt: queue.push.createdAt,
                failedAttempts: queue.failedAttempts,
                retryAt: queue.retryAt.map { $0.timeIntervalSince1970 * 1000 },
                lastFailure: queue.lastFailure
            )
        }
        return current
    }

    // MARK: Loading and planning

    /// Every device's first queued push, and how many are queued.
    private func loadDevices() throws {
        var after: [UInt8]? = nil
        while true {
            let page = try engine.jobs(in: PushQueues.deliveries, after: after, limit: 512)
            guard let last = page.last else { return }
            var unreadable: [JobChange] = []
            for job in page {
                guard let device = PlannedPush.device(of: job.key), let push = PlannedPush(decoding: job.payload) else {
                    unreadable.append(.remove(queue: PushQueues.deliveries, key: job.key))
                    continue
                }
                figures.queued += 1
                if devices[device.prefix] == nil { becomeHead(device.prefix, key: job.key, push: push) }
            }
            if !unreadable.isEmpty {
                logger.error("unreadable queued pushes were removed", metadata: ["hearth.count": "\(unreadable.count)"])
                try engine.changeJobs(unreadable)
            }
            after = last.key
        }
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
        let namespace = namespace
        let planned = try engine.readAsServerSynchronously { snapshot in
            intents.map { job in
                (
                    key: job.key,
                    pushes: PushIntent(decoding: job.payload).map {
                        planner.plan($0, key: job.key, namespace: namespace, in: snapshot)
                    } ?? []
                )
            }
        }
        var changes: [JobChange] = []
        for intent in planned {
            for push in intent.pushes {
                changes.append(.put(queue: PushQueues.deliveries, key: push.key, payload: push.push.encoded()))
            }
            changes.append(.remove(queue: PushQueues.intents, key: intent.key))
        }
        try engine.changeJobs(changes)
        plannedThrough = last.key
        for intent in planned {
            for push in intent.pushes {
                figures.queued += 1
                let prefix = PlannedPush.deviceKey(uid: push.push.uid, deviceId: push.push.deviceId)
                if devices[prefix] == nil { becomeHead(prefix, key: push.key, push: push.push) }
            }
        }
        pump()
        return true
    }

    private func becomeHead(_ prefix: [UInt8], key: [UInt8], push: PlannedPush) {
        devices[prefix] = DeviceQueue(key: key, push: push)
        ready.append(prefix)
    }

    // MARK: Delivering

    /// Starts attempts at ready devices' head pushes while there is room. The devices' tokens
    /// are checked in one read for all the pushes it starts.
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
        let holding = devicesStillHold(starting.compactMap { devices[$0]?.push })
        for (prefix, holds) in zip(starting, holding) {
            guard let queue = devices[prefix] else { continue }
            // A device removed (signed out) or registered again with another token since the
            // push was planned gets nothing more for that token.
            guard holds else {
                figures.dropped["device_removed", default: 0] += 1
                finishHead(of: prefix)
                continue
            }
            inFlight += 1
            let key = queue.key
            let message = queue.push.message
            let provider = provider
            Task {
                let outcome = await provider.send(message)
                await self.attempted(prefix, key: key, outcome: outcome)
            }
        }
    }

    /// Whether each push's device still has its token (`devices/$uid/$deviceId/token`), read in
    /// one snapshot; all false when the store cannot be read (the pushes are dropped as their
    /// devices' would be: none is sent twice).
    private func devicesStillHold(_ pushes: [PlannedPush]) -> [Bool] {
        let current = try? engine.readAsServerSynchronously { snapshot in
            pushes.map { push in
                snapshot.node(at: DataPath("devices", push.uid, push.deviceId, "token"))
                    == .leaf(.string(push.token), priority: nil)
            }
        }
        return current ?? pushes.map { _ in false }
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
            await removeDevice(queue.push)
            do {
                try dropDevice(prefix)
            } catch {
                stopWriting(error)
            }
        case .retry(let reason, let hint):
            count(reason, dropped: false)
            queue.failedAttempts += 1
            queue.lastFailure = reason.rawValue
            let decision = settings.retry.decision(
                afterFailedAttempts: queue.failedAttempts,
                createdAt: Date(timeIntervalSince1970: queue.push.createdAt / 1000),
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

    /// Removes the heads done since the last call (one commit), then takes each device's next
    /// push, if any (one read).
    private func removeFinishedHeads() {
        removalQueued = false
        let heads = finishedHeads.compactMap { prefix in devices[prefix].map { (prefix: prefix, key: $0.key) } }
        finishedHeads = []
        guard !heads.isEmpty else { return }
        do {
            try engine.changeJobs(heads.map { .remove(queue: PushQueues.deliveries, key: $0.key) })
            figures.queued -= heads.count
            let next = try engine.nextJobs(in: PushQueues.deliveries, after: heads.map(\.key))
            for (head, next) in zip(heads, next) {
                devices[head.prefix] = nil
                guard let next, next.key.starts(with: head.prefix) else { continue }
                guard let push = PlannedPush(decoding: next.payload) else {
                    try engine.changeJobs([.remove(queue: PushQueues.deliveries, key: next.key)])
                    figures.queued -= 1
                    try finishHeadlessNext(head.prefix, after: next.key)
                    continue
                }
                becomeHead(head.prefix, key: next.key, push: push)
            }
        } catch {
            stopWriting(error)
        }
        pump()
    }

    /// Takes the next readable push of a device after `key`.
    private func finishHeadlessNext(_ prefix: [UInt8], after key: [UInt8]) throws {
        var after = key
        while let next = try engine.jobs(in: PushQueues.deliveries, after: after, limit: 1).first,
            next.key.starts(with: prefix)
        {
            if let push = PlannedPush(decoding: next.payload) { return becomeHead(prefix, key: next.key, push: push) }
            try engine.changeJobs([.remove(queue: PushQueues.deliveries, key: next.key)])
            figures.queued -= 1
            after = next.key
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
            try engine.changeJobs(page.map { .remove(queue: PushQueues.deliveries, key: $0.key) })
            figures.queued -= page.count
            after = last.key
        }
    }

    /// Deletes `devices/$uid/$deviceId` when it still holds the token the provider refused (a
    /// device registered again with a new token stays).
    private func removeDevice(_ push: PlannedPush) async {
        let device = DataPath("devices", push.uid, push.deviceId)
        let token = push.token
        do {
            _ = try await engine.writeAsServer(Write(.set(device, NewValue(node: nil)))) { snapshot in
                snapshot.node(at: device.child(ChildKey("token"))) == .leaf(.string(token), priority: nil)
            }
        } catch {
            logger.error(
                "an unregistered device could not be removed",
                metadata: [
                    "hearth.uid": "\(push.uid)", "hearth.device": "\(push.deviceId)", "hearth.error": "\(error)",
                ]
            )
        }
    }
}
