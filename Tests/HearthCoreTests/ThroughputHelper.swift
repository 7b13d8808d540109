import Foundation
import Testing

@testable import HearthCore

/// Throughput check for the parsers and the renderer, run by hand in release mode (it is not a
/// timed test and is skipped unless `HEARTH_THROUGHPUT` is set):
///
///     HEARTH_THROUGHPUT=50 swift test -c release --filter ThroughputHelper
///
/// The value is the size of the generated document in MB. Results are printed, never asserted.
struct ThroughputHelper {
    /// A chat-like document of about `megabytes` MB: users with names, e-mails, numbers,
    /// booleans, nested tags and unicode text.
    static func document(megabytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(megabytes * 1_100_000)
        out.append(contentsOf: Array(#"{"users":{"#.utf8))
        let generator = PushIDGenerator(clock: { 1_700_000_000_000 })
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

    static func measure(_ label: String, bytes: Int, repeat count: Int = 3, _ body: () throws -> Void) rethrows {
        var best = Double.infinity
        for _ in 0..<count {
            let start = ContinuousClock.now
            try body()
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            best = min(best, seconds)
        }
        print(
            "\(label): \(String(format: "%.0f", Double(bytes) / 1e6 / best)) MB/s (\(String(format: "%.3f", best)) s)"
        )
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["HEARTH_THROUGHPUT"] != nil))
    func throughput() throws {
        let megabytes = Int(ProcessInfo.processInfo.environment["HEARTH_THROUGHPUT"] ?? "") ?? 50
        let doc = Self.document(megabytes: megabytes)
        print("document: \(doc.count) bytes")
        try Self.measure("JSONParser.parse", bytes: doc.count) { _ = try JSONParser.parse(doc) }
        var node: Node?
        try Self.measure("TreeParser.parse", bytes: doc.count) { node = try TreeParser.parse(doc, at: .root).node }
        try Self.measure("JSONEventParser (64 KB chunks)", bytes: doc.count) {
            var parser = JSONEventParser()
            var leaves = 0
            try doc.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let end = min(offset + 65_536, raw.count)
                    try parser.feed(buffer: UnsafeRawBufferPointer(rebasing: raw[offset..<end])) { _ in leaves += 1 }
                    offset = end
                }
            }
            try parser.finish { _ in leaves += 1 }
        }
        var rendered: [UInt8] = []
        Self.measure("JSONRenderer.render .plain", bytes: doc.count) {
            rendered = []
            rendered.reserveCapacity(doc.count)
            JSONRenderer.render(node, format: .plain, into: &rendered)
        }
        Self.measure("JSONRenderer.render .export", bytes: doc.count) {
            var out: [UInt8] = []
            out.reserveCapacity(doc.count)
            JSONRenderer.render(node, format: .export, into: &out)
        }
        print("rendered: \(rendered.count) bytes")
    }
}
