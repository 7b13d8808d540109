import Dispatch
import HearthCore

/// `--scenario json`: the JSON parsers and renderer in process (no server), in MB/s, on a
/// generated chat-like document of `megabytes` MB (users with names, e-mails, numbers,
/// booleans, nested tags and unicode text). Each figure is the best of `runs`. (It was a
/// test switched on by `HEARTH_THROUGHPUT`; timing belongs here.)
struct JSONScenario {
    var megabytes: Int
    var runs: Int

    func run() throws -> JSONThroughputReport {
        let document = Self.document(megabytes: megabytes)
        progress("json: \(document.count) bytes generated")
        var stages: [JSONStageReport] = []
        stages.append(try measure("JSONParser.parse", bytes: document.count) { _ = try JSONParser.parse(document) })
        var node: Node?
        stages.append(
            try measure("TreeParser.parse", bytes: document.count) {
                node = try TreeParser.parse(document, at: .root).node
            }
        )
        stages.append(
            try measure("JSONEventParser (64 KB chunks)", bytes: document.count) {
                var parser = JSONEventParser()
                var leaves = 0
                try document.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let end = min(offset + 65_536, raw.count)
                        try parser.feed(buffer: UnsafeRawBufferPointer(rebasing: raw[offset..<end])) { _ in
                            leaves += 1
                        }
                        offset = end
                    }
                }
                try parser.finish { _ in leaves += 1 }
            }
        )
        let parsed = node
        for format in [RenderFormat.plain, .export] {
            stages.append(
                try measure("JSONRenderer.render .\(format)", bytes: document.count) {
                    var out: [UInt8] = []
                    out.reserveCapacity(document.count)
                    JSONRenderer.render(parsed, format: format, into: &out)
                }
            )
        }
        return JSONThroughputReport(documentBytes: document.count, runs: runs, stages: stages)
    }

    /// The best MB/s of `runs` timed calls of `body` over a document of `bytes`.
    private func measure(_ name: String, bytes: Int, _ body: () throws -> Void) throws -> JSONStageReport {
        var best = Double.infinity
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let mbPerS = (Double(bytes) / 1e6 / best).rounded()
        progress("json: \(name): \(mbPerS) MB/s")
        return JSONStageReport(name: name, mbPerS: mbPerS, bestSeconds: (best * 1000).rounded() / 1000)
    }

    /// A chat-like document of about `megabytes` MB.
    static func document(megabytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(megabytes * 1_100_000)
        out.append(contentsOf: Array(#"{"users":{"#.utf8))
        let generator = HearthCore.PushIDGenerator(clock: { 1_700_000_000_000 })
        var i = 0
        while out.count < megabytes * 1_000_000 {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            let record = """
                "\(generator.next())":{"name":"User number \(i) Ünïcødé","email":"user\(i)@example.com",\
                "age":\(i % 97),"score":\(Double(i) * 0.37),"active":\(i % 3 == 0),"createdAt":\(1_700_000_000_000 + i),\
                "tags":["alpha","beta\\n\\"quoted\\"","gamma"],"profile":{"city":"Zürich","bio":"Hello, I am user \(i) 😀",\
                "lat":\(47.3769 + Double(i % 1000) / 1000),"lng":\(8.5417 - Double(i % 500) / 300)}}
                """
            out.append(contentsOf: Array(record.utf8))
            i += 1
        }
        out.append(contentsOf: Array("}}".utf8))
        return out
    }
}

struct JSONThroughputReport: Encodable, Sendable {
    var documentBytes: Int
    var runs: Int
    var stages: [JSONStageReport]
}

struct JSONStageReport: Encodable, Sendable {
    var name: String
    /// MB (10^6 bytes) of the document per second, best of the runs.
    var mbPerS: Double
    var bestSeconds: Double
}

/// The `--scenario json` part of the printed JSON object, next to the other scenarios'.
struct BenchOutputWithJSON: Encodable {
    var output: BenchOutputWithSignIn
    var json: JSONThroughputReport?

    private enum Keys: String, CodingKey {
        case json
    }

    func encode(to encoder: Encoder) throws {
        try output.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(json, forKey: .json)
    }
}
