import Foundation
import HearthTestSupport
import HearthTriggerFixtures
import Synchronization
import Testing

/// A server with the tests' `ListChildCounter` trigger and `CommitFile` observer
/// (`hearth-trigger-server`), killed with SIGKILL under load: after a restart every
/// acknowledged item is there, each list's count equals its number of items, and the observer
/// was handed every commit.
@Suite("triggers under kill -9", .serialized)
struct TriggerDurabilityTests {
    static let binary = HearthProcess.binary.deletingLastPathComponent().appendingPathComponent("hearth-trigger-server")

    final class Acknowledged: Sendable {
        let items = Mutex<Set<String>>([])
        var count: Int { items.withLock { $0.count } }
        func record(_ paths: [String]) { items.withLock { $0.formUnion(paths) } }
    }

    static func start(data: URL, commitFile: URL, directory: URL) async throws -> ProcessTestServer {
        let port = try FreePort.find()
        return try await ProcessTestServer.launch(
            [
                "--port", "\(port)", "--data", data.path, "--admin-secret", "test-admin-secret",
                "--commit-file", commitFile.path,
            ],
            environment: [:],
            workingDirectory: directory,
            port: port,
            dataDirectory: data,
            adminSecret: "test-admin-secret",
            executable: binary
        )
    }

    @Test func countsAndObservedCommitsStayExactAcrossKill9() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let commitFile = directory.appending("commits.log")
        let server = try await Self.start(data: data, commitFile: commitFile, directory: directory.url)
        let acknowledged = Acknowledged()
        let target = 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    var index = 0
                    while true {
                        let list = "l\(index % 3)"
                        let key = "w\(writer)-\(index)"
                        let paths: [String]
                        let response: ProcessTestServer.Response
                        do {
                            if index % 2 == 0 {
                                paths = ["/lists/\(list)/items/\(key)"]
                                response = try await server.request(
                                    "PUT",
                                    "/lists/\(list)/items/\(key).json",
                                    body: "\(index)",
                                    admin: true,
                                    timeout: .seconds(10)
                                )
                            } else {
                                // Two items into two lists in one multi-path update.
                                let other = "l\((index + 1) % 3)"
                                paths = ["/lists/\(list)/items/\(key)", "/lists/\(other)/items/\(key)"]
                                response = try await server.request(
                                    "PATCH",
                                    "/lists.json",
                                    body: #"{"\#(list)/items/\#(key)":1,"\#(other)/items/\#(key)":2}"#,
                                    admin: true,
                                    timeout: .seconds(10)
                                )
                            }
                        } catch {
                            return  // the server is gone
                        }
                        guard response.status == 200 else { return }
                        acknowledged.record(paths)
                        index += 1
                    }
                }
            }
            group.addTask {
                let deadline = ContinuousClock.now + .seconds(90)
                while acknowledged.count < target && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                server.child.send(SIGKILL)
            }
            try await group.waitForAll()
        }
        _ = try await server.child.wait(timeout: .seconds(30))
        #expect(server.child.process.terminationReason == .uncaughtSignal)
        try? await server.client.shutdown()
        let expected = acknowledged.items.withLock { $0 }
        #expect(expected.count >= target, "only \(expected.count) items were acknowledged")

        let restarted = try await Self.start(data: data, commitFile: commitFile, directory: directory.url)
        let read = try await restarted.request("GET", "/lists.json", admin: true)
        let lists = try JSONSerialization.jsonObject(with: Data(read.body.utf8)) as? [String: [String: Any]] ?? [:]
        var stored = Set<String>()
        for (name, list) in lists {
            let items = list["items"] as? [String: Any] ?? [:]
            stored.formUnion(items.keys.map { "/lists/\(name)/items/\($0)" })
            #expect(
                (list["count"] as? NSNumber)?.intValue == items.count,
                "list \(name): count \(list["count"] ?? "none"), \(items.count) items"
            )
        }
        let lost = expected.subtracting(stored)
        #expect(lost.isEmpty, "\(lost.count) acknowledged items lost: \(lost.prefix(5))")

        // A last write; once the observer has it, it must have had every commit before it.
        let marker = try await restarted.request("PUT", "/marker.json", body: "true", admin: true)
        #expect(marker.status == 200)
        let deadline = ContinuousClock.now + .seconds(60)
        var lines = CommitFile.read(commitFile.path)
        while !lines.contains(where: { $0.paths == ["/marker"] }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            lines = CommitFile.read(commitFile.path)
        }
        let last = try #require(lines.first { $0.paths == ["/marker"] }?.sequence, "the observer never saw the marker")
        let sequences = Set(lines.map(\.sequence))
        #expect(sequences == Set(1...last), "observed \(sequences.count) of \(last) commits")
        let observed = Set(lines.flatMap(\.paths))
        let unobserved = stored.subtracting(observed)
        #expect(unobserved.isEmpty, "\(unobserved.count) stored items never observed: \(unobserved.prefix(5))")
        _ = try await restarted.terminate()
    }
}
