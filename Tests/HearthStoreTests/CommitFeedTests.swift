import HearthCore
import Synchronization
import Testing

@testable import HearthStore

@Suite struct CommitFeedTests {
    @Test func observersSeeEveryCommitInOrderWithResolvedValues() async throws {
        let temp = try TemporaryStore(clock: { 42 })
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let seen = Mutex<[CommittedWrite]>([])
        ns.observeCommits { write in seen.withLock { $0.append(write) } }
        try await ns.set("a", #"{"t":{".sv":"timestamp"}}"#)
        _ = try await ns.update("", [("b/c", "1"), ("d", "null")])
        _ = try await ns.write(Write(.set(path("a"), try value("2")), ifMatch: "not-the-etag"))
        try await ns.set("a/.priority", "7")
        try await ns.importJSON(at: path("i"), nextChunk: ImportExportTests.chunks(Array("[1]".utf8), size: 10))
        let writes = seen.withLock { $0 }
        #expect(writes.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(writes[0] == CommittedWrite(sequence: 1, location: path("a"), kind: .set(try value(#"{"t":42}"#).node)))
        #expect(
            writes[1]
                == CommittedWrite(
                    sequence: 2,
                    location: .root,
                    kind: .update([(path("b/c"), .leaf(.number(1), priority: nil)), (path("d"), nil)])
                )
        )
        #expect(
            writes[2]
                == CommittedWrite(
                    sequence: 3,
                    location: path("a/.priority"),
                    kind: .set(.leaf(.number(7), priority: nil))
                )
        )
        #expect(writes[3] == CommittedWrite(sequence: 4, location: path("i"), kind: .set(nil)))
        #expect(writes[4] == CommittedWrite(sequence: 5, location: path("i"), kind: .reset))
    }
}
