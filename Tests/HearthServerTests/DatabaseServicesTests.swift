import Foundation
import HearthCore
import HearthDatabase
import HearthFunctions
import HearthServer
import HearthTestSupport
import Synchronization
import Testing

/// `HearthServerConfiguration.services`: each `DatabaseService` runs while the server serves,
/// with the database open from its first moment to its cancellation; one that fails runs again.
struct DatabaseServicesTests {
    /// Writes `started` (and counts its runs) at once; fails its first run; on cancellation
    /// writes `stopped`, which the database must still accept.
    final class Recorder: DatabaseService {
        let runs = Atomic<Int>(0)
        var name: String { "test.recorder" }

        func run(database: Database) async throws {
            let writes = CallableDatabase(namespace: "default", engine: try await database.engine(for: "default"))
            let run = runs.add(1, ordering: .relaxed).newValue
            try await writes.commit([.set(DataPath("started"), .number(Double(run)))])
            if run == 1 { throw CallableError(.unavailable, "the first run fails") }
            do {
                try await Task.sleep(for: .seconds(3_600))
            } catch {
                try await writes.commit([.set(DataPath("stopped"), true)])
                throw error
            }
        }
    }

    @Test func aServiceRunsWithTheDatabaseOpenIsRunAgainAfterAFailureAndStopsBeforeItCloses() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-database-services")
        defer { temporary.remove() }
        let directory = temporary.url
        var configuration = HearthServerConfiguration.testing(in: directory)
        let recorder = Recorder()
        configuration.services = [recorder]

        let (first, one) = try await TestServer.start(configuration, in: directory)
        // The first run failed; the second, a second later, runs until the shutdown.
        let started = try await eventually(timeout: .seconds(10), { try await one.get("/started") }) { $0 == "2" }
        #expect(started == "2")
        #expect(try await one.get("/stopped") == "null")
        await first.shutdown()
        #expect(recorder.runs.load(ordering: .relaxed) == 2)

        configuration.services = []
        let (second, two) = try await TestServer.start(configuration, in: directory)
        #expect(try await two.get("/stopped") == "true", "its last write, on cancellation, was committed")
        await second.shutdown()
    }
}
