import Foundation
import NIOCore

/// `puts`: acknowledged small PUTs per second at distinct paths, with 1 and with 64 keep-alive clients.
struct PutsScenario {
    var target: ServerTarget
    var group: EventLoopGroup
    var clientCounts: [Int]
    var seconds: Double
    var warmupSeconds: Double
    var silent: Bool
    var targetOpsPerS: Double

    func run() async throws -> PutsReport {
        // A fresh, chronological prefix per run: nothing is overwritten or deleted, so the writes never land
        // in a range of recently deleted keys (which LevelDB iterators must skip one tombstone at a time).
        let runPath = "/bench/puts/" + PushIDGenerator.fresh()
        try await withConnection(to: target, on: group.next()) { admin in
            try await admin.send(
                RequestBuilder("PUT", runPath + "/probe", body: Array(#"{"n":0,"t":"hello"}"#.utf8), target: target)
            ).expectSuccess("PUT \(runPath)/probe")
        }
        progress("puts: writing under \(runPath)")
        var phases: [PutsPhase] = []
        for clients in clientCounts {
            progress("puts: \(clients) client(s), \(warmupSeconds) s warm-up + \(seconds) s")
            phases.append(try await runPhase(clients: clients, runPath: runPath))
        }
        return PutsReport(path: runPath, phases: phases)
    }

    private func runPhase(clients: Int, runPath: String) async throws -> PutsPhase {
        var connections: [HTTPConnection] = []
        for _ in 0..<clients {
            connections.append(try await HTTPConnection.connect(to: target, on: group.next()))
        }
        let measureFrom = NIODeadline.now() + .nanoseconds(Int64(warmupSeconds * 1e9))
        let deadline = measureFrom + .nanoseconds(Int64(seconds * 1e9))
        var futures: [EventLoopFuture<LoopResult>] = []
        for (index, connection) in connections.enumerated() {
            let encoder = SmallPutEncoder(
                target: target,
                basePath: "\(runPath)/p\(clients)/c\(index)",
                silent: silent
            )
            let loop = ClosedLoop(connection: connection, measureFrom: measureFrom, deadline: deadline) {
                i,
                allocator in
                encoder.encode(i, allocator: allocator)
            }
            futures.append(loop.run())
        }
        let merged = try await LoopResult.merged(futures)
        let (latencies, errors, firstError) = (merged.latencies, merged.errors, merged.firstError)
        for connection in connections { await connection.close() }
        let opsPerS = Double(latencies.count) / seconds
        let is64 = clients == 64
        return PutsPhase(
            clients: clients,
            seconds: seconds,
            requests: latencies.count,
            opsPerS: opsPerS.rounded(),
            p50Ms: r3(percentile(latencies, 50) / 1000),
            p99Ms: r3(percentile(latencies, 99) / 1000),
            maxMs: r3(Double(latencies.last ?? 0) / 1000),
            errors: errors,
            firstError: firstError,
            targetOpsPerS: is64 ? targetOpsPerS : nil,
            meetsTarget: is64 ? (opsPerS >= targetOpsPerS && errors == 0) : nil
        )
    }
}
