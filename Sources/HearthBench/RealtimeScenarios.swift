import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Options of the WebSocket scenarios (`ws-puts`, `ws-fanout`, `ws-latency`, `ws-idle-memory`).
struct RealtimeOptions: ParsableArguments {
    @Option(help: "ws-puts: WebSocket connections, each with one put in flight.")
    var wsConnections = 16

    @Option(help: "ws-fanout: runs as SUBSCRIBERSxPUBLISHERS, comma-separated.")
    var fanout = "100x4,1000x1"

    @Option(help: "ws-fanout: puts each publisher keeps in flight.")
    var publisherWindow = 1

    @Option(help: "ws-latency: subscribers.")
    var latencySubscribers = 100

    @Option(help: "ws-latency: publishers (they share the rate).")
    var latencyPublishers = 1

    @Option(help: "ws-latency: puts per second, all publishers together (deliveries/s = rate × subscribers).")
    var latencyRate = 500

    @Option(help: "ws-idle-memory: connections to open.")
    var idleConnections = 10_000

    @Option(help: "ws-idle-memory: seconds to wait after opening them before reading the RSS.")
    var settle = 3.0

    @Option(
        help:
            "The server's process id: ws-idle-memory reads its RSS from /proc/PID/status; ws-puts, ws-fanout and ws-latency report its CPU use."
    )
    var serverPid: Int?

    @Option(help: "ws-*: WebSocket handshakes in flight while opening connections.")
    var connectConcurrency = 64

    @Option(help: "ws-*: the credential of the `auth` request (default: the admin secret).")
    var wsCredential: String?

    @Flag(
        help:
            "ws-fanout, ws-latency: run the publishers on the subscribers' event loops instead of a thread of their own."
    )
    var publishersShareLoops = false

    func fanoutRuns() throws -> [(subscribers: Int, publishers: Int)] {
        try fanout.split(separator: ",").map { item in
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: "x")
            guard parts.count == 2, let s = Int(parts[0]), let p = Int(parts[1]), s >= 1, p >= 1 else {
                throw ValidationError("--fanout takes SUBSCRIBERSxPUBLISHERS items, not '\(item)'")
            }
            return (s, p)
        }
    }

    func validate() throws {
        _ = try fanoutRuns()
        guard wsConnections >= 1, publisherWindow >= 1, latencySubscribers >= 1, latencyPublishers >= 1,
            latencyRate >= 1, idleConnections >= 1, settle >= 0, connectConcurrency >= 1
        else {
            throw ValidationError("WebSocket counts must be positive")
        }
    }
}

/// The WebSocket scenarios. Every connection authenticates with `auth` and the credential.
struct RealtimeBench {
    var target: ServerTarget
    var group: EventLoopGroup
    var options: RealtimeOptions
    var seconds: Double
    var warmupSeconds: Double

    private var credential: String? { options.wsCredential ?? target.adminSecret }

    func run(_ selected: Set<Scenario>) async throws -> RealtimeReports {
        // Publishers get an event loop of their own: on a loop shared with hundreds of
        // subscribers, a put's answer would wait behind their reads, and the client, not the
        // server, would set the publishers' pace.
        let publisherGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let reports = try await run(selected, publisherLoops: options.publishersShareLoops ? group : publisherGroup)
            try? await publisherGroup.shutdownGracefully()
            return reports
        } catch {
            try? await publisherGroup.shutdownGracefully()
            throw error
        }
    }

    private func run(_ selected: Set<Scenario>, publisherLoops: EventLoopGroup) async throws -> RealtimeReports {
        var reports = RealtimeReports()
        // First: the server's allocator keeps what the other scenarios freed, and new connections would reuse it.
        if selected.contains(.wsIdleMemory) { reports.wsIdleMemory = try await wsIdleMemory() }
        if selected.contains(.wsPuts) { reports.wsPuts = try await wsPuts() }
        if selected.contains(.wsFanout) {
            var runs: [WSFanoutRun] = []
            for (subscribers, publishers) in try options.fanoutRuns() {
                runs.append(
                    try await wsFanout(subscribers: subscribers, publishers: publishers, publisherLoops: publisherLoops)
                )
            }
            reports.wsFanout = WSFanoutReport(runs: runs)
        }
        if selected.contains(.wsLatency) { reports.wsLatency = try await wsLatency(publisherLoops: publisherLoops) }
        return reports
    }

    // MARK: ws-puts

    private func wsPuts() async throws -> WSPutsReport {
        let runPath = "/bench/wsputs/" + PushIDGenerator.fresh()
        let count = options.wsConnections
        progress(
            "ws-puts: \(count) WebSocket connections writing under \(runPath), \(warmupSeconds) s warm-up + \(seconds) s"
        )
        let connections = try await open(count, label: "ws-puts") { _, ws in try await self.authenticate(ws) }
        let measureFrom = monotonicNanos() + UInt64(warmupSeconds * 1e9)
        let deadline = measureFrom + UInt64(seconds * 1e9)
        var futures: [EventLoopFuture<WriterResult>] = []
        for (index, ws) in connections.enumerated() {
            let head = Array(#","a":"p","b":{"p":"\#(runPath)/c\#(index)/"#.utf8)
            let writer = WebSocketWriter(
                connection: ws,
                mode: .closedLoop(window: 1),
                measureFrom: measureFrom,
                deadline: deadline
            ) { out, id, seq, _ in
                // {"t":"d","d":{"r":ID,"a":"p","b":{"p":"/bench/wsputs/RUN/cK/SEQ","d":{"n":SEQ,"t":"hello"}}}}
                out.append(contentsOf: Self.requestHead)
                appendDecimal(id, to: &out)
                out.append(contentsOf: head)
                appendDecimal(seq, to: &out)
                out.append(contentsOf: Self.putsMiddle)
                appendDecimal(seq, to: &out)
                out.append(contentsOf: Self.putsTail)
            }
            futures.append(writer.run())
        }
        var cpu = CPUSampler(serverPid: options.serverPid)
        try await sleep(until: measureFrom)
        cpu.start()
        try await sleep(until: deadline)
        let merged = try await collect(futures)
        await closeAll(connections)
        let latencies = merged.latencies.sorted()
        let cpuWindow = cpu.stop(operations: latencies.count)
        let opsPerS = Double(latencies.count) / seconds
        return WSPutsReport(
            path: runPath,
            connections: count,
            seconds: seconds,
            puts: latencies.count,
            opsPerS: opsPerS.rounded(),
            p50Ms: r3(percentile(latencies, 50) / 1000),
            p99Ms: r3(percentile(latencies, 99) / 1000),
            maxMs: r3(Double(latencies.last ?? 0) / 1000),
            errors: merged.errors,
            firstError: merged.firstError,
            cpu: cpuWindow,
            targetOpsPerS: 40_000,
            meetsTarget: opsPerS >= 40_000 && merged.errors == 0
        )
    }

    private static let requestHead = Array(#"{"t":"d","d":{"r":"#.utf8)
    private static let putsMiddle = Array(#"","d":{"n":"#.utf8)
    private static let putsTail = Array(#","t":"hello"}}}}"#.utf8)

    // MARK: ws-fanout

    private func wsFanout(
        subscribers: Int,
        publishers: Int,
        publisherLoops: EventLoopGroup
    ) async throws -> WSFanoutRun {
        let window = options.publisherWindow
        progress(
            "ws-fanout: \(subscribers) subscribers on /bench/fan, \(publishers) publisher(s) (window \(window)), \(warmupSeconds) s warm-up + \(seconds) s"
        )
        let pubs = try await open(publishers, label: "publishers", on: publisherLoops) { _, ws in
            try await self.authenticate(ws)
        }
        try await put(on: pubs[0], path: "/bench/fan", json: "null")
        let subs = try await open(subscribers, label: "subscribers") { _, ws in
            try await self.authenticate(ws)
            try await ws.listen("/bench/fan")
        }
        let counter = PushCounter(subs)
        let base = try await counter.total()

        let start = monotonicNanos()
        let measureFrom = start + UInt64(warmupSeconds * 1e9)
        let deadline = measureFrom + UInt64(seconds * 1e9)
        var futures: [EventLoopFuture<WriterResult>] = []
        for (k, ws) in pubs.enumerated() {
            let head = Array(#","a":"p","b":{"p":"/bench/fan/p\#(k)","d":{"s":"#.utf8)
            let writer = WebSocketWriter(
                connection: ws,
                mode: .closedLoop(window: window),
                measureFrom: measureFrom,
                deadline: deadline
            ) { out, id, seq, _ in
                // {"t":"d","d":{"r":ID,"a":"p","b":{"p":"/bench/fan/pK","d":{"s":SEQ}}}}
                out.append(contentsOf: Self.requestHead)
                appendDecimal(id, to: &out)
                out.append(contentsOf: head)
                appendDecimal(seq, to: &out)
                out.append(contentsOf: Self.fanTail)
            }
            futures.append(writer.run())
        }
        var cpu = CPUSampler(serverPid: options.serverPid)
        try await sleep(until: measureFrom)
        let c0 = try await counter.total()
        let t0 = monotonicNanos()
        cpu.start()
        try await sleep(until: deadline)
        let c1 = try await counter.total()
        let t1 = monotonicNanos()
        let cpuWindow = cpu.stop(operations: c1 - c0)
        let merged = try await collect(futures)

        // Drain: every acked put must reach every subscriber.
        let expected = merged.acked * subscribers
        var received = try await counter.total() - base
        var lastProgress = monotonicNanos()
        while received < expected && monotonicNanos() - lastProgress < 2_000_000_000 {
            try await Task.sleep(nanoseconds: 50_000_000)
            let now = try await counter.total() - base
            if now != received { lastProgress = monotonicNanos() }
            received = now
        }
        let closed = try await counter.closed()
        await closeAll(subs)
        await closeAll(pubs)

        let windowSeconds = Double(t1 - t0) / 1e9
        let deliveriesPerS = Double(c1 - c0) / windowSeconds
        let latencies = merged.latencies.sorted()
        let target: Double? =
            switch (subscribers, publishers) {
            case (100, 4): 500_000
            case (1000, 1): 250_000
            default: nil
            }
        let lost = max(expected - received, 0)
        return WSFanoutRun(
            subscribers: subscribers,
            publishers: publishers,
            publisherWindow: window,
            seconds: r3(windowSeconds),
            deliveries: c1 - c0,
            deliveriesPerS: deliveriesPerS.rounded(),
            putsAcked: merged.acked,
            putsPerS: (Double(latencies.count) / seconds).rounded(),
            putP50Ms: r3(percentile(latencies, 50) / 1000),
            putP99Ms: r3(percentile(latencies, 99) / 1000),
            expectedDeliveries: expected,
            lost: lost,
            subscribersClosed: closed.count,
            errors: merged.errors,
            firstError: merged.firstError ?? closed.first,
            cpu: cpuWindow,
            targetDeliveriesPerS: target,
            meetsTarget: target.map { deliveriesPerS >= $0 && lost == 0 && closed.isEmpty && merged.errors == 0 }
        )
    }

    private static let fanTail = Array("}}}}".utf8)

    // MARK: ws-latency

    private func wsLatency(publisherLoops: EventLoopGroup) async throws -> WSLatencyReport {
        let s = options.latencySubscribers
        let p = options.latencyPublishers
        let rate = options.latencyRate
        progress(
            "ws-latency: \(s) subscribers on /bench/lat, \(p) publisher(s) pacing \(rate) puts/s in total (\(rate * s) deliveries/s), \(warmupSeconds) s warm-up + \(seconds) s"
        )
        let pubs = try await open(p, label: "publishers", on: publisherLoops) { _, ws in
            try await self.authenticate(ws)
        }
        try await put(on: pubs[0], path: "/bench/lat", json: "null")
        let subs = try await open(s, label: "subscribers") { _, ws in
            try await self.authenticate(ws)
            try await ws.listen("/bench/lat")
        }
        let base = monotonicNanos()  // the values carry nanoseconds since `base`
        let start = base + 100_000_000
        let measureFrom = start + UInt64(warmupSeconds * 1e9)
        let deadline = measureFrom + UInt64(seconds * 1e9)
        var recorders: [LatencyRecorder] = []
        for ws in subs {
            let recorder = LatencyRecorder(ws, publishers: p, base: base, measureFrom: measureFrom)
            try await recorder.install()
            recorders.append(recorder)
        }
        let spacing = UInt64(1e9 / Double(rate))
        var futures: [EventLoopFuture<WriterResult>] = []
        for (k, ws) in pubs.enumerated() {
            let head = Array(#","a":"p","b":{"p":"/bench/lat/p\#(k)","d":{"s":"#.utf8)
            let writer = WebSocketWriter(
                connection: ws,
                mode: .paced(start: start, phase: UInt64(k) * spacing, interval: UInt64(p) * spacing),
                measureFrom: measureFrom,
                deadline: deadline
            ) { out, id, seq, now in
                // {"t":"d","d":{"r":ID,"a":"p","b":{"p":"/bench/lat/pK","d":{"s":SEQ,"w":NANOS}}}}
                out.append(contentsOf: Self.requestHead)
                appendDecimal(id, to: &out)
                out.append(contentsOf: head)
                appendDecimal(seq, to: &out)
                out.append(contentsOf: Self.latencyMiddle)
                appendDecimal(Int(now &- base), to: &out)
                out.append(contentsOf: Self.fanTail)
            }
            futures.append(writer.run())
        }
        var cpu = CPUSampler(serverPid: options.serverPid)
        try await sleep(until: measureFrom)
        cpu.start()
        try await sleep(until: deadline)
        let cpuWindow = cpu.stop(operations: Int(seconds * Double(rate * s)))
        var results: [WriterResult] = []
        for future in futures { results.append(try await future.get()) }
        let sent = results.map(\.sent)

        // Drain: wait until every subscriber has seen each publisher's last sequence number.
        var waited = monotonicNanos()
        let drainStart = waited
        while waited - drainStart < 3_000_000_000 {
            var complete = true
            for recorder in recorders where try await !recorder.hasSeen(lastSequences: sent) {
                complete = false
                break
            }
            if complete { break }
            try await Task.sleep(nanoseconds: 50_000_000)
            waited = monotonicNanos()
        }
        var latencies: [UInt32] = []
        var lost = 0
        var outOfOrder = 0
        var closed: [String] = []
        for recorder in recorders {
            let r = try await recorder.result(lastSequences: sent)
            latencies += r.latencies
            lost += r.lost
            outOfOrder += r.outOfOrder
            if let reason = r.closedReason { closed.append(reason) }
        }
        await closeAll(subs)
        await closeAll(pubs)

        latencies.sort()
        let ackLatencies = results.flatMap(\.latencies).sorted()
        let errors = results.reduce(0) { $0 + $1.errors }
        let p50 = r3(percentile(latencies, 50) / 1000)
        let p99 = r3(percentile(latencies, 99) / 1000)
        return WSLatencyReport(
            subscribers: s,
            publishers: p,
            putsPerSTarget: Double(rate),
            seconds: seconds,
            putsSent: sent.reduce(0, +),
            deliveries: latencies.count,
            deliveriesPerS: (Double(latencies.count) / seconds).rounded(),
            p50Ms: p50,
            p99Ms: p99,
            p999Ms: r3(percentile(latencies, 99.9) / 1000),
            maxMs: r3(Double(latencies.last ?? 0) / 1000),
            lost: lost,
            outOfOrder: outOfOrder,
            putAckP50Ms: r3(percentile(ackLatencies, 50) / 1000),
            subscribersClosed: closed.count,
            errors: errors,
            firstError: results.compactMap(\.firstError).first ?? closed.first,
            cpu: cpuWindow,
            targetP50Ms: 3,
            targetP99Ms: 5,
            meetsTarget: p50 <= 3 && p99 <= 5 && lost == 0 && closed.isEmpty && errors == 0 && !latencies.isEmpty
        )
    }

    private static let latencyMiddle = Array(#","w":"#.utf8)

    // MARK: ws-idle-memory

    private func wsIdleMemory() async throws -> WSIdleMemoryReport {
        guard let pid = options.serverPid else {
            throw ValidationError("ws-idle-memory needs --server-pid PID (the server's RSS is read from /proc)")
        }
        let n = options.idleConnections
        raiseFileLimit(to: UInt64(n + 1024))
        // Warm-up: the first connections initialise the namespace's engine and the allocator's arenas.
        let warm = min(100, n)
        let warmConnections = try await open(warm, label: "warm-up") { i, ws in
            try await self.authenticate(ws)
            try await ws.listen("/bench/idle/w\(i)")
        }
        await closeAll(warmConnections)
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let before = try readRSS(pid: pid)
        progress("ws-idle-memory: server RSS \(before) kB; opening \(n) connections, each listening on /bench/idle/<i>")
        let openStart = monotonicNanos()
        let connections = try await open(n, label: "idle") { i, ws in
            try await self.authenticate(ws)
            try await ws.listen("/bench/idle/\(i)")
        }
        let openSeconds = Double(monotonicNanos() - openStart) / 1e9
        progress("ws-idle-memory: \(n) connections open in \(r3(openSeconds)) s; waiting \(options.settle) s")
        try await Task.sleep(nanoseconds: UInt64(options.settle * 1e9))
        let after = try readRSS(pid: pid)
        var stillOpen = 0
        var firstError: String?
        for ws in connections {
            let reason = try await ws.eventLoop.submit { ws.closedReason }.get()
            if let reason { firstError = firstError ?? reason } else { stillOpen += 1 }
        }
        await closeAll(connections)
        try await Task.sleep(nanoseconds: 2_000_000_000)
        let afterClose = try? readRSS(pid: pid)
        let perConnection = Double(after - before) / Double(n)
        progress(
            "ws-idle-memory: RSS \(before) → \(after) kB (\(r3(perConnection)) kB/connection), \(afterClose.map(String.init) ?? "?") kB after closing"
        )
        return WSIdleMemoryReport(
            connections: n,
            serverPid: pid,
            openSeconds: r3(openSeconds),
            settleSeconds: options.settle,
            rssBeforeKB: before,
            rssAfterKB: after,
            rssAfterCloseKB: afterClose,
            kbPerConnection: r3(perConnection),
            stillOpen: stillOpen,
            errors: n - stillOpen,
            firstError: firstError,
            targetKBPerConnection: 10,
            meetsTarget: perConnection <= 10 && stillOpen == n
        )
    }

    // MARK: Helpers

    private func authenticate(_ ws: WebSocketConnection) async throws {
        guard let credential else {
            throw ValidationError("the WebSocket scenarios need --admin-secret (or --ws-credential)")
        }
        try await ws.authenticate(credential)
    }

    private func put(on ws: WebSocketConnection, path: String, json: String) async throws {
        let status = try await ws.request("p", body: "{\"p\":\(jsonString(path)),\"d\":\(json)}")
        guard status == "ok" else { throw BenchError("WebSocket put at \(path) answered \(status)") }
    }

    /// Opens `count` connections, at most `connectConcurrency` handshakes at a time, and runs `setup` on each.
    private func open(
        _ count: Int,
        label: String,
        on loops: EventLoopGroup? = nil,
        setup: @escaping @Sendable (Int, WebSocketConnection) async throws -> Void
    ) async throws -> [WebSocketConnection] {
        let target = self.target
        let group = loops ?? self.group
        var opened = [WebSocketConnection?](repeating: nil, count: count)
        let concurrency = options.connectConcurrency
        let started = monotonicNanos()
        var lastReport = started
        try await withThrowingTaskGroup(of: (Int, WebSocketConnection).self) { tasks in
            var next = 0
            var inFlight = 0
            var done = 0
            while done < count {
                while next < count && inFlight < concurrency {
                    let i = next
                    tasks.addTask {
                        let ws = try await WebSocketConnection.connect(
                            to: target,
                            on: group.next(),
                            maskSeed: UInt32(truncatingIfNeeded: i &+ 1)
                        )
                        do {
                            try await setup(i, ws)
                        } catch {
                            await ws.close()
                            throw error
                        }
                        return (i, ws)
                    }
                    next += 1
                    inFlight += 1
                }
                guard let (i, ws) = try await tasks.next() else { break }
                opened[i] = ws
                inFlight -= 1
                done += 1
                if count >= 1000, monotonicNanos() - lastReport > 2_000_000_000 {
                    lastReport = monotonicNanos()
                    progress("\(label): \(done)/\(count) connections open")
                }
            }
        }
        return opened.map { $0! }
    }

    private func collect(_ futures: [EventLoopFuture<WriterResult>]) async throws -> WriterResult {
        var merged = WriterResult()
        for future in futures {
            let r = try await future.get()
            merged.latencies += r.latencies
            merged.acked += r.acked
            merged.sent += r.sent
            merged.errors += r.errors
            merged.firstError = merged.firstError ?? r.firstError
        }
        return merged
    }

    private func sleep(until deadline: UInt64) async throws {
        let now = monotonicNanos()
        if deadline > now { try await Task.sleep(nanoseconds: deadline - now) }
    }
}

/// Sums the subscribers' push counters on their own event loops (one hop per loop).
struct PushCounter: Sendable {
    private let byLoop: [(EventLoop, [WebSocketConnection])]

    init(_ connections: [WebSocketConnection]) {
        var groups: [ObjectIdentifier: (EventLoop, [WebSocketConnection])] = [:]
        for ws in connections {
            groups[ObjectIdentifier(ws.eventLoop), default: (ws.eventLoop, [])].1.append(ws)
        }
        byLoop = Array(groups.values)
    }

    func total() async throws -> Int {
        var sum = 0
        for (loop, connections) in byLoop {
            sum += try await loop.submit { connections.reduce(0) { $0 + $1.pushCount } }.get()
        }
        return sum
    }

    /// The reasons of the connections that are gone.
    func closed() async throws -> [String] {
        var reasons: [String] = []
        for (loop, connections) in byLoop {
            reasons += try await loop.submit { connections.compactMap(\.closedReason) }.get()
        }
        return reasons
    }
}

/// A `ws-latency` subscriber: parses `bench/lat/pK`, `"s":SEQ` and `"w":NANOS` out of each push.
final class LatencyRecorder: @unchecked Sendable {
    struct Result: Sendable {
        var latencies: [UInt32]
        var lost: Int
        var outOfOrder: Int
        var closedReason: String?
    }

    private let ws: WebSocketConnection
    private let base: UInt64
    private let measureFrom: UInt64
    // Confined to ws.eventLoop.
    private var lastSequence: [Int]
    private var latencies: [UInt32] = []
    private var gaps = 0
    private var outOfOrder = 0

    private static let pathKey = Array(#""p":"bench/lat/p"#.utf8)
    private static let sequenceKey = Array(#""s":"#.utf8)
    private static let sentKey = Array(#""w":"#.utf8)

    init(_ ws: WebSocketConnection, publishers: Int, base: UInt64, measureFrom: UInt64) {
        self.ws = ws
        self.base = base
        self.measureFrom = measureFrom
        self.lastSequence = Array(repeating: -1, count: publishers)
        latencies.reserveCapacity(1 << 16)
    }

    func install() async throws {
        try await ws.eventLoop.submit {
            self.ws.onPush = { [unowned self] m in self.push(m) }
        }.get()
    }

    private func push(_ m: UnsafeRawBufferPointer) {
        let now = monotonicNanos()
        guard let k = integer(after: Self.pathKey, in: m, from: 20), k < lastSequence.count,
            let sequence = integer(after: Self.sequenceKey, in: m, from: 40),
            let sent = integer(after: Self.sentKey, in: m, from: 40)
        else { return }  // the listen's initial data, or something else
        let last = lastSequence[k]
        if sequence > last {
            gaps += sequence - last - 1
            lastSequence[k] = sequence
        } else {
            outOfOrder += 1
        }
        let sentAt = base &+ UInt64(sent)
        if sentAt >= measureFrom {
            latencies.append(UInt32(clamping: (now &- sentAt) / 1000))
        }
    }

    /// Whether the last sequence number of every publisher has arrived.
    func hasSeen(lastSequences sent: [Int]) async throws -> Bool {
        try await ws.eventLoop.submit {
            if self.ws.closedReason != nil { return true }
            for (k, n) in sent.enumerated() where self.lastSequence[k] < n - 1 { return false }
            return true
        }.get()
    }

    func result(lastSequences sent: [Int]) async throws -> Result {
        try await ws.eventLoop.submit {
            self.ws.onPush = nil
            var tail = 0
            for (k, n) in sent.enumerated() { tail += max(n - 1 - self.lastSequence[k], 0) }
            return Result(
                latencies: self.latencies,
                lost: self.gaps + tail,
                outOfOrder: self.outOfOrder,
                closedReason: self.ws.closedReason
            )
        }.get()
    }
}

/// The resident set size of a process in kB, from `/proc/PID/status`.
func readRSS(pid: Int) throws -> Int {
    let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let digits = line.dropFirst("VmRSS:".count).filter(\.isNumber)
        if let kb = Int(digits) { return kb }
    }
    throw BenchError("no VmRSS in /proc/\(pid)/status")
}

/// Raises this process's open-file soft limit toward `wanted` (up to the hard limit); answers
/// the limit now in force (nil: unknown).
@discardableResult
func raiseFileLimit(to wanted: UInt64) -> UInt64? {
    #if canImport(Glibc)
    var limit = rlimit()
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    guard getrlimit(resource, &limit) == 0 else { return nil }
    if limit.rlim_cur < wanted {
        limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        _ = setrlimit(resource, &limit)
        guard getrlimit(resource, &limit) == 0 else { return nil }
        if limit.rlim_cur < wanted {
            progress("open-file limit \(limit.rlim_cur) < \(wanted): raise it with `ulimit -n`")
        }
    }
    return UInt64(limit.rlim_cur)
    #else
    return nil
    #endif
}
