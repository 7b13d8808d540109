import ArgumentParser
import Foundation
import NIOCore

/// Options of `fanout-write`.
struct FanoutWriteOptions: ParsableArguments {
    @Option(help: "fanout-write: members per chat, comma-separated; a message writes 1 + 3 × (members − 1) locations.")
    var members = "10,100,500"

    @Option(help: "fanout-write: connections, each with one message in flight.")
    var fanoutConnections = 4

    @Option(help: "fanout-write: transports, comma-separated: rest (one PATCH per message), ws (one `m` update).")
    var fanoutVia = "rest,ws"

    func memberCounts() throws -> [Int] {
        try members.split(separator: ",").map {
            guard let n = Int($0.trimmingCharacters(in: .whitespaces)), (2...10_000).contains(n) else {
                throw ValidationError("--members takes counts from 2 to 10000 separated by commas, not '\($0)'")
            }
            return n
        }
    }

    func transports() throws -> [FanoutWriteTransport] {
        try fanoutVia.split(separator: ",").map {
            guard let transport = FanoutWriteTransport(rawValue: $0.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("--fanout-via takes rest and/or ws separated by commas, not '\($0)'")
            }
            return transport
        }
    }

    func validate() throws {
        guard !(try memberCounts()).isEmpty, !(try transports()).isEmpty, fanoutConnections >= 1 else {
            throw ValidationError("fanout-write needs members, transports and at least one connection")
        }
    }
}

enum FanoutWriteTransport: String, Sendable, Encodable {
    case rest, ws
}

/// `fanout-write`: a chat message with its members' counters (unread and total increments, last
/// message time) as ONE multi-path update, over REST (`PATCH`) or WebSocket (`m`), by
/// `--fanout-connections` closed loops with one message in flight each. The Hearth side of
/// `../shared/anchors/leveldb-fanout`. Each run writes under a fresh location and checks at the end
/// that the counters of `u001` count every acknowledged message.
struct FanoutWriteScenario {
    var target: ServerTarget
    var group: EventLoopGroup
    var options: FanoutWriteOptions
    var seconds: Double
    var warmupSeconds: Double
    var silent: Bool
    var serverPid: Int?

    func run() async throws -> FanoutWriteReport {
        var runs: [FanoutWriteRun] = []
        for members in try options.memberCounts() {
            for transport in try options.transports() {
                runs.append(try await run(transport, members: members))
            }
        }
        return FanoutWriteReport(runs: runs)
    }

    private func run(_ transport: FanoutWriteTransport, members: Int) async throws -> FanoutWriteRun {
        let runID = PushIDGenerator.fresh()
        let runPath = "/bench/fanout/\(runID)"
        let body = FanoutWriteBody(members: members)
        let connections = options.fanoutConnections
        progress(
            "fanout-write: \(transport.rawValue), \(members) members (\(body.locations) locations a message), "
                + "\(connections) connection(s) under \(runPath), \(warmupSeconds) s warm-up + \(seconds) s"
        )
        let measured: Measured
        switch transport {
        case .rest: measured = try await overREST(body, runPath: runPath)
        case .ws: measured = try await overWebSocket(body, runPath: runPath)
        }
        let verified = try await verify(runPath, acked: measured.acked)
        let latencies = measured.latencies.sorted()
        let perS = Double(latencies.count) / seconds
        return FanoutWriteRun(
            transport: transport,
            members: members,
            locationsPerMessage: body.locations,
            connections: connections,
            path: runPath,
            seconds: seconds,
            messages: latencies.count,
            messagesPerS: perS.rounded(),
            locationsPerS: (perS * Double(body.locations)).rounded(),
            p50Ms: r3(percentile(latencies, 50) / 1000),
            p99Ms: r3(percentile(latencies, 99) / 1000),
            maxMs: r3(Double(latencies.last ?? 0) / 1000),
            acked: measured.acked,
            errors: measured.errors,
            firstError: measured.firstError,
            verified: verified,
            cpu: measured.cpu
        )
    }

    private struct Measured {
        var latencies: [UInt32]
        var acked: Int
        var errors: Int
        var firstError: String?
        var cpu: CPUWindow
    }

    private func overREST(_ body: FanoutWriteBody, runPath: String) async throws -> Measured {
        var connections: [HTTPConnection] = []
        for _ in 0..<options.fanoutConnections {
            connections.append(try await HTTPConnection.connect(to: target, on: group.next()))
        }
        let head = Array(
            "PATCH \(runPath).json?\(target.baseQuery)\(silent ? "&print=silent" : "") HTTP/1.1\r\nHost: \(target.hostHeader)\r\nContent-Type: application/json\r\nContent-Length: "
                .utf8
        )
        let (measureFrom, deadline) = window()
        var futures: [EventLoopFuture<LoopResult>] = []
        for (index, connection) in connections.enumerated() {
            let loop = ClosedLoop(
                connection: connection,
                measureFrom: NIODeadline.uptimeNanoseconds(measureFrom),
                deadline: NIODeadline.uptimeNanoseconds(deadline)
            ) { sequence, allocator in
                var bytes = head
                appendDecimal(body.byteCount(connection: index, sequence: sequence), to: &bytes)
                bytes.append(contentsOf: [13, 10, 13, 10])
                body.append(connection: index, sequence: sequence, to: &bytes)
                var buffer = allocator.buffer(capacity: bytes.count)
                buffer.writeBytes(bytes)
                return buffer
            }
            futures.append(loop.run())
        }
        let cpu = try await sampleCPU(from: measureFrom, to: deadline)
        let merged = try await LoopResult.merged(futures)
        for connection in connections { await connection.close() }
        return Measured(
            latencies: merged.latencies,
            acked: merged.succeeded,
            errors: merged.errors,
            firstError: merged.firstError,
            cpu: cpu.stop(operations: merged.latencies.count)
        )
    }

    private func overWebSocket(_ body: FanoutWriteBody, runPath: String) async throws -> Measured {
        guard let credential = target.adminSecret else {
            throw ValidationError("fanout-write over ws needs --admin-secret")
        }
        let connections = try await WebSocketConnection.openAuthenticated(
            options.fanoutConnections,
            to: target,
            on: group,
            credential: credential
        )
        let requestHead = Array(#"{"t":"d","d":{"r":"#.utf8)
        let updateHead = Array(#","a":"m","b":{"p":"\#(runPath)","d":"#.utf8)
        let updateTail = Array("}}}".utf8)
        let (measureFrom, deadline) = window()
        var futures: [EventLoopFuture<WriterResult>] = []
        for (index, ws) in connections.enumerated() {
            let writer = WebSocketWriter(
                connection: ws,
                mode: .closedLoop(window: 1),
                measureFrom: measureFrom,
                deadline: deadline
            ) { out, id, sequence, _ in
                out.append(contentsOf: requestHead)
                appendDecimal(id, to: &out)
                out.append(contentsOf: updateHead)
                body.append(connection: index, sequence: sequence, to: &out)
                out.append(contentsOf: updateTail)
            }
            futures.append(writer.run())
        }
        let cpu = try await sampleCPU(from: measureFrom, to: deadline)
        var latencies: [UInt32] = []
        var acked = 0
        var errors = 0
        var firstError: String?
        for future in futures {
            let result = try await future.get()
            latencies += result.latencies
            acked += result.acked
            errors += result.errors
            firstError = firstError ?? result.firstError
        }
        for ws in connections { await ws.close() }
        return Measured(
            latencies: latencies,
            acked: acked,
            errors: errors,
            firstError: firstError,
            cpu: cpu.stop(operations: latencies.count)
        )
    }

    /// The measured window in monotonic nanoseconds: after the warm-up, `seconds` long.
    private func window() -> (UInt64, UInt64) {
        let window = MeasuredWindow(warmupSeconds: warmupSeconds, seconds: seconds)
        return (window.start, window.end)
    }

    /// Waits for the window's start, samples CPU, waits for its end.
    private func sampleCPU(from start: UInt64, to end: UInt64) async throws -> CPUSampler {
        try await MeasuredWindow(start: start, end: end).sampleCPU(serverPid: serverPid)
    }

    /// True when `u001`'s total and its four chats' unread counters each count every
    /// acknowledged message (every message has u001 among its other members).
    private func verify(_ runPath: String, acked: Int) async throws -> Bool {
        try await withConnection(to: target, on: group.next()) { connection in
            let total = try await connection.send(
                RequestBuilder("GET", runPath + "/unreadTotals/u001", target: target)
            )
            try total.expectSuccess("GET \(runPath)/unreadTotals/u001")
            let chats = try await connection.send(
                RequestBuilder("GET", runPath + "/userChats/u001", target: target)
            )
            try chats.expectSuccess("GET \(runPath)/userChats/u001")
            let unread =
                (try? JSONSerialization.jsonObject(with: Data(chats.bodyText.utf8))) as? [String: Any] ?? [:]
            let sum = unread.values.reduce(0) { sum, chat in
                sum + ((chat as? [String: Any])?["unread"] as? Int ?? 0)
            }
            let totalCount = acked == 0 ? "null" : String(acked)
            return total.bodyText == totalCount && sum == acked
        }
    }
}

struct FanoutWriteReport: Encodable, Sendable {
    var runs: [FanoutWriteRun]
}

struct FanoutWriteRun: Encodable, Sendable {
    var transport: FanoutWriteTransport
    var members: Int
    /// 1 + 3 × (members − 1): the message, and per other member unread, lastMessageAt, total.
    var locationsPerMessage: Int
    var connections: Int
    /// Where this run wrote: `/bench/fanout/<push id of the run>`.
    var path: String
    var seconds: Double
    /// Messages sent in the measured window and acknowledged, and per second.
    var messages: Int
    var messagesPerS: Double
    var locationsPerS: Double
    var p50Ms: Double
    var p99Ms: Double
    var maxMs: Double
    /// Acknowledged messages over the whole run, warm-up included.
    var acked: Int
    var errors: Int
    var firstError: String?
    /// `unreadTotals/u001` and the sum of `userChats/u001/*/unread` both equal `acked`.
    var verified: Bool
    /// CPU of the benchmark and (with `--server-pid`) the server in the window; per message.
    var cpu: CPUWindow
}

/// The printed object with the `fanout_write` entry.
struct BenchOutputWithFanoutWrite: Encodable {
    var output: BenchOutputWithRulesReload
    var fanoutWrite: FanoutWriteReport?

    private enum Keys: String, CodingKey {
        case fanoutWrite = "fanout_write"
    }

    func encode(to encoder: Encoder) throws {
        try output.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(fanoutWrite, forKey: .fanoutWrite)
    }
}
