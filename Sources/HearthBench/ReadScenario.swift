import NIOCore

/// `read50mb`: loads a ~50 MB chat-like subtree at `/bench/big` in a few PUTs, then times full GETs of it.
struct ReadScenario {
    var target: ServerTarget
    var group: EventLoopGroup
    var megabytes: Int
    var parts: Int
    var runs: Int
    var skipLoad: Bool
    var targetSeconds: Double

    func run() async throws -> ReadReport {
        try await withConnection(to: target, on: group.next()) { connection in
            var loadBytes = 0
            var loadSeconds = 0.0
            if !skipLoad {
                progress("read50mb: clearing /bench/big")
                try await connection.send(RequestBuilder("DELETE", "/bench/big", target: target))
                    .expectSuccess("DELETE /bench/big")
                var generator = ChatDataGenerator(seed: 50)
                let partBytes = megabytes * 1_000_000 / parts
                for part in 0..<parts {
                    var body: [UInt8] = []
                    body.reserveCapacity(partBytes + 1024)
                    generator.appendMessages(approximately: partBytes, to: &body)
                    progress("read50mb: PUT /bench/big/chat\(part) (\(body.count) bytes)")
                    let started = ContinuousClock.now
                    try await connection.send(
                        RequestBuilder("PUT", "/bench/big/chat\(part)", body: body, target: target)
                    )
                    .expectSuccess("PUT /bench/big/chat\(part)")
                    loadSeconds += (ContinuousClock.now - started).seconds
                    loadBytes += body.count
                }
            }
            progress("read50mb: warm-up GET")
            let warm = try await connection.send(RequestBuilder("GET", "/bench/big", target: target))
            try warm.expectSuccess("GET /bench/big")
            var times: [Double] = []
            var bytes = warm.bodyLength
            for run in 1...runs {
                let started = ContinuousClock.now
                let response = try await connection.send(RequestBuilder("GET", "/bench/big", target: target))
                let elapsed = (ContinuousClock.now - started).seconds
                try response.expectSuccess("GET /bench/big")
                bytes = response.bodyLength
                times.append(elapsed)
                progress("read50mb: GET \(run)/\(runs): \(bytes) bytes in \(r3(elapsed)) s")
            }
            let sorted = times.sorted()
            let median = percentile(sorted, 50)
            return ReadReport(
                loadBytes: loadBytes,
                loadSeconds: r3(loadSeconds),
                loadMBPerS: loadSeconds > 0 ? r3(Double(loadBytes) / 1e6 / loadSeconds) : 0,
                bytes: bytes,
                runsS: times.map(r3),
                bestS: r3(sorted[0]),
                medianS: r3(median),
                mbPerS: r3(Double(bytes) / 1e6 / median),
                targetS: targetSeconds,
                meetsTarget: median <= targetSeconds
            )
        }
    }
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
