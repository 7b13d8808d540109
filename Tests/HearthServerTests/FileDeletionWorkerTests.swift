import Foundation
import HearthCore
import HearthFunctions
import Testing

@testable import HearthServer

/// The worker that carries out file deletions queued with commits (`FileDeletion`), woken by
/// the commit (the callable here deletes nothing itself), in a namespace first used after the
/// start: it deletes what each job names in the default bucket and nothing else, drops a job
/// that names nothing, and leaves the queue empty.
@Suite(.timeLimit(.minutes(3))) struct FileDeletionWorkerTests {
    /// `queueDeletions {deletions: [payload, ...]}`: writes `queued` = true with one job per
    /// payload (a JSON object as `FileDeletion` stores it, or a string stored as it is).
    struct QueueDeletions: Callable {
        var name: String { "queueDeletions" }
        func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
            guard case .array(let items)? = request.data["deletions"] else {
                throw .invalidArgument("'deletions' must be an array")
            }
            let jobs = items.map { item in
                var payload: [UInt8] = []
                if case .string(let raw) = item {
                    payload = Array(raw.utf8)
                } else {
                    JSONRenderer.render(item, into: &payload)
                }
                return ServerJob(queue: FileDeletion.queue, payload: payload)
            }
            try await request.database.commit([.set(DataPath("queued"), true)], jobs: jobs)
            return true
        }
    }

    @Test func aCommitsQueuedDeletionsAreCarriedOutAndTheirJobsRemoved() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            try configuration.callables.add(QueueDeletions())
        }) { server in
            for name in ["f/1", "f/2/3", "fx/4"] { _ = try await server.upload(name) }
            let inFolder = try await server.upload("g/x")
            let outside = try await server.upload("h/y")
            let otherBucket = try await server.upload("g/z", bucket: "other.appspot.com")
            #expect(try await server.pendingFileDeletions() == 0)
            let deletions = [
                #"{"folder":"f/"}"#,
                #"{"downloadUrl":"\#(inFolder)","under":"g/"}"#,
                #"{"downloadUrl":"\#(outside)","under":"g/"}"#,
                #"{"downloadUrl":"\#(otherBucket)","under":"g/"}"#,
                #""not a deletion""#, #""{\"folder\":\"\"}""#,
            ]
            let reply = try await CallableClient(server: server).call(
                "queueDeletions",
                data: #"{"deletions":[\#(deletions.joined(separator: ","))]}"#,
                ns: "later"
            )
            #expect(reply.status == 200, "\(reply.body)")
            let left = try await eventually({ try await server.pendingFileDeletions() }, until: { $0 == 0 })
            #expect(left == 0, "queued deletions left")
            for name in ["f/1", "f/2/3", "g/x"] { #expect(try await !server.objectExists(name), "\(name) kept") }
            for name in ["fx/4", "h/y"] { #expect(try await server.objectExists(name), "\(name) deleted") }
            #expect(try await server.objectExists("g/z", bucket: "other.appspot.com"))
            #expect(try await server.get("/queued", ns: "later") == "true")
        }
    }

    @Test func aDeletionRoundTripsThroughItsPayload() {
        let deletions: [FileDeletion] = [
            .folder("chats/c1/"), .object(downloadURL: "http://h/v0/b/b/o/n", under: "chats/c1/"),
        ]
        for deletion in deletions {
            #expect(deletion.job.queue == "files.delete")
            #expect(FileDeletion(payload: deletion.job.payload) == deletion)
        }
        for bad in [#"{"folder":""}"#, #"{"folder":"chats"}"#, #"{"downloadUrl":"u"}"#, "[]", "x"] {
            #expect(FileDeletion(payload: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test func retriesBackOffDoublingUpToTheBound() {
        let delays = (1...12).map { FileDeletionWorker.backoff(after: $0, first: .seconds(1), max: .seconds(300)) }
        #expect(Array(delays.prefix(9)) == [1, 2, 4, 8, 16, 32, 64, 128, 256].map { Duration.seconds($0) })
        #expect(delays.dropFirst(9).allSatisfy { $0 == .seconds(300) })
    }
}
