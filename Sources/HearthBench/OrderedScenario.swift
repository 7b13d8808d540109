import Foundation
import NIOCore

/// `ordered`: an indexed `orderBy="score"&limitToLast=50` over 1,000,000 children at `/bench/list`.
struct OrderedScenario {
    var target: ServerTarget
    var group: EventLoopGroup
    var children: Int
    var batchSize: Int
    var limit: Int
    var runs: Int
    var skipFill: Bool
    var targetMs: Double

    static let rules = #"{"rules": {".read": false, ".write": false, "bench": {"list": {".indexOn": ["score"]}}}}"#

    func run() async throws -> OrderedReport {
        try await withConnection(to: target, on: group.next()) { connection in
            progress("ordered: PUT /.settings/rules.json (.indexOn score at /bench/list)")
            try await connection.send(
                RequestBuilder("PUT", "/.settings/rules", body: Array(Self.rules.utf8), target: target)
            ).expectSuccess("PUT /.settings/rules.json")

            var fillSeconds: Double?
            var topScores: [Int]?
            if !skipFill {
                progress("ordered: clearing /bench/list")
                try await connection.send(RequestBuilder("DELETE", "/bench/list", target: target))
                    .expectSuccess("DELETE /bench/list")
                let (seconds, scores) = try await fill(connection)
                fillSeconds = seconds
                topScores = Array(scores.sorted(by: >).prefix(limit)).sorted()
            }

            let query = ["orderBy=%22score%22", "limitToLast=\(limit)"]
            let request = RequestBuilder("GET", "/bench/list", query: query, target: target)
            // Warm-up: the first reads may load index blocks from disk.
            var last = try await connection.send(request)
            try last.expectSuccess("GET /bench/list.json?orderBy=\"score\"&limitToLast=\(limit)")
            last = try await connection.send(request)
            var times: [Double] = []
            for _ in 0..<runs {
                let started = ContinuousClock.now
                last = try await connection.send(request)
                times.append((ContinuousClock.now - started).seconds * 1000)
                try last.expectSuccess("GET /bench/list.json?orderBy=\"score\"")
            }
            let sorted = times.sorted()
            var verified: Bool?
            if let topScores { verified = Self.scores(in: last) == topScores }
            let p50 = percentile(sorted, 50)
            progress("ordered: p50 \(r3(p50)) ms over \(runs) runs, verified: \(verified.map(String.init) ?? "n/a")")
            return OrderedReport(
                children: children,
                fillSeconds: fillSeconds.map(r3),
                fillChildrenPerS: fillSeconds.map { (Double(children) / $0).rounded() },
                limit: limit,
                resultBytes: last.bodyLength,
                verified: verified,
                runs: runs,
                p50Ms: r3(p50),
                minMs: r3(sorted.first ?? 0),
                maxMs: r3(sorted.last ?? 0),
                targetMs: targetMs,
                meetsTarget: p50 <= targetMs && verified != false
            )
        }
    }

    /// PATCHes `children` children `{name, score}` in batches; returns the time taken and every score.
    private func fill(_ connection: HTTPConnection) async throws -> (Double, [Int]) {
        var generator = ChatDataGenerator(seed: 1_000_000)
        var scores: [Int] = []
        scores.reserveCapacity(children)
        var seconds = 0.0
        var written = 0
        while written < children {
            let count = min(batchSize, children - written)
            var body: [UInt8] = []
            body.reserveCapacity(count * 64)
            body.append(UInt8(ascii: "{"))
            for i in 0..<count {
                if i > 0 { body.append(UInt8(ascii: ",")) }
                let score = generator.randomInt(below: 1_000_000_000)
                scores.append(score)
                body.append(UInt8(ascii: "\""))
                body.append(contentsOf: generator.nextKey())
                body.append(contentsOf: #"":{"name":"player-\#(written + i)","score":\#(score)}"#.utf8)
            }
            body.append(UInt8(ascii: "}"))
            let started = ContinuousClock.now
            try await connection.send(RequestBuilder("PATCH", "/bench/list", body: body, target: target))
                .expectSuccess("PATCH /bench/list")
            seconds += (ContinuousClock.now - started).seconds
            written += count
            if written % 100_000 < batchSize || written == children {
                progress("ordered: \(written)/\(children) children, \(Int(Double(written) / seconds))/s")
            }
        }
        return (seconds, scores)
    }

    /// The `score` of every child in a query result, ascending.
    private static func scores(in response: HTTPResponse) -> [Int]? {
        guard response.bodyLength == response.bodyPrefix.readableBytes,
            let object = try? JSONSerialization.jsonObject(with: Data(response.bodyPrefix.readableBytesView))
                as? [String: Any]
        else { return nil }
        let scores = object.values.compactMap { ($0 as? [String: Any])?["score"] as? Int }
        return scores.count == object.count ? scores.sorted() : nil
    }
}
