import Foundation
import HearthTestSupport
import Synchronization
import Testing

/// The disk fills and empties under concurrent writers and readers: every acknowledged write is
/// stored, no refused one is, and the server reopens its store under load without a crash.
@Suite("Disk faults: a full disk under load")
struct DiskFullLoadTests {
    final class Outcomes: Sendable {
        let stop = Atomic<Bool>(false)
        let next = Atomic<Int>(0)
        let acknowledged = Mutex<Set<Int>>([])
        let refused = Mutex<Set<Int>>([])
        let unexpected = Mutex<[String]>([])

        var counts: (acknowledged: Int, refused: Int) {
            (acknowledged.withLock { $0.count }, refused.withLock { $0.count })
        }
    }

    @Test func everyAcknowledgedWriteIsStoredAndNoRefusedOneIs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let fault = try DiskFault(directory: data, scratch: directory.url)
        let server = try await fault.startServer(in: directory.url)
        let outcomes = Outcomes()
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask { try await Self.write(until: outcomes, on: server) }
                }
                group.addTask { try await Self.read(until: outcomes, on: server) }
                try await group.waitForAll()
            }
        }
        // Healthy, full, healthy again: each phase lasts until writers saw it (a phase takes
        // about a second; 60 s for a whole suite's load on two cores, where 30 s once ran out).
        do {
            try await eventually(timeout: .seconds(60)) { outcomes.counts.acknowledged >= 20 }
            try fault.set(.full)
            try await eventually(timeout: .seconds(60)) { outcomes.counts.refused >= 20 }
            try fault.set(nil)
            let before = outcomes.counts.acknowledged
            try await eventually(timeout: .seconds(60)) { outcomes.counts.acknowledged >= before + 20 }
        } catch {
            // A phase that never came leaves no server behind.
            outcomes.stop.store(true, ordering: .relaxed)
            _ = try? await load.value
            await server.kill()
            throw error
        }
        outcomes.stop.store(true, ordering: .relaxed)
        try await load.value
        #expect(outcomes.unexpected.withLock { $0 }.isEmpty, "\(outcomes.unexpected.withLock { $0 })")
        #expect(server.child.isRunning)
        #expect(try await server.terminate().status == 0)

        let again = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let stored = try await again.request("GET", "/load.json?shallow=true", admin: true)
        let keys = Set(((try JSONSerialization.jsonObject(with: Data(stored.body.utf8)) as? [String: Any]) ?? [:]).keys)
        let acknowledged = Set(outcomes.acknowledged.withLock { $0 }.map { "w\($0)" })
        let refused = Set(outcomes.refused.withLock { $0 }.map { "w\($0)" })
        #expect(acknowledged.subtracting(keys).isEmpty, "acknowledged but lost: \(acknowledged.subtracting(keys))")
        #expect(refused.intersection(keys).isEmpty, "refused but stored: \(refused.intersection(keys))")
        _ = try await again.terminate()
    }

    /// PUTs `/load/w<n>` until told to stop, noting each answer: 200, or a 503 of the disk.
    private static func write(until outcomes: Outcomes, on server: ProcessTestServer) async throws {
        while !outcomes.stop.load(ordering: .relaxed) {
            let n = outcomes.next.add(1, ordering: .relaxed).newValue
            let answer = try await server.request("PUT", "/load/w\(n).json", body: "\(n)", admin: true)
            if answer.status == 200 {
                outcomes.acknowledged.withLock { _ = $0.insert(n) }
            } else if answer.status == 503 {
                outcomes.refused.withLock { _ = $0.insert(n) }
            } else {
                outcomes.unexpected.withLock { $0.append("PUT \(n): \(answer.status) \(answer.body)") }
            }
        }
    }

    /// Reads the whole list until told to stop: 200, or a 503 while the store is being reopened.
    private static func read(until outcomes: Outcomes, on server: ProcessTestServer) async throws {
        while !outcomes.stop.load(ordering: .relaxed) {
            let answer = try await server.request("GET", "/load.json?shallow=true", admin: true)
            if answer.status != 200 && answer.status != 503 {
                outcomes.unexpected.withLock { $0.append("GET: \(answer.status) \(answer.body)") }
            }
        }
    }
}
