import Foundation
import HearthCore
import Synchronization
import Testing

@testable import HearthStore

@Suite struct ImportExportTests {
    /// Feeds `bytes` in chunks of `size`.
    static func chunks(_ bytes: [UInt8], size: Int) -> @Sendable () throws -> [UInt8]? {
        let offset = Mutex(0)
        return {
            offset.withLock { offset in
                guard offset < bytes.count else { return nil }
                let end = min(bytes.count, offset + size)
                defer { offset = end }
                return Array(bytes[offset..<end])
            }
        }
    }

    @Test func importStreamsReplacesAndIndexes() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([
            IndexSpec(location: [.key(ChildKey("m")), .wildcard("$c")], indexed: .child(path("t")))
        ])
        try await ns.set("old", "1")
        try await ns.set("m/c1/zz", #"{"t":1000}"#)
        let document =
            #"{"m":{"c1":{"a":{"t":3},"b":{"t":1,".priority":"p"}},"c2":{"x":{"t":2}}},"list":["x","y"],"s":{".value":"v",".priority":1}}"#
        let progress = Mutex<Int64>(0)
        try await ns.importJSON(at: .root, nextChunk: Self.chunks(Array(document.utf8), size: 7)) { done in
            progress.withLock { $0 = done }
        }
        #expect(progress.withLock { $0 } == Int64(document.utf8.count))
        #expect(
            try await ns.json("", format: .export)
                == #"{"list":{"0":"x","1":"y"},"m":{"c1":{"a":{"t":3},"b":{".priority":"p","t":1}},"c2":{"x":{"t":2}}},"s":{".value":"v",".priority":1}}"#
        )
        let ordered = try await ns.read {
            try $0.query(at: path("m/c1"), Query(order: .child(path("t")))).map(\.key.string)
        }
        #expect(ordered == ["b", "a"])
    }

    @Test func importAtAPathLeavesTheRestAlone() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("", #"{"a":1,"b":{"c":2}}"#)
        try await ns.importJSON(at: path("b"), nextChunk: Self.chunks(Array(#"{"d":3}"#.utf8), size: 100))
        #expect(try await ns.json("") == #"{"a":1,"b":{"d":3}}"#)
    }

    @Test func badImportReportsTheError() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        await #expect(throws: (any Error).self) {
            try await ns.importJSON(at: .root, nextChunk: Self.chunks(Array(#"{"a.b":1}"#.utf8), size: 100))
        }
    }

    @Test func exportStreamsInChunksThatJoinToTheDocument() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        var object: [String] = []
        for i in 0..<3000 { object.append(#""k\#(i)":{"text":"\#(String(repeating: "x", count: 500))","n":\#(i)}"#) }
        try await ns.set("big", "{" + object.joined(separator: ",") + "}")
        let chunks = Mutex<[[UInt8]]>([])
        try await ns.exportJSON(at: path("big"), format: .plain) { chunk in chunks.withLock { $0.append(chunk) } }
        let joined = chunks.withLock { $0.flatMap { $0 } }
        #expect(chunks.withLock { $0.count } > 1)
        #expect(String(decoding: joined, as: UTF8.self) == (try await ns.json("big")))
    }
}
