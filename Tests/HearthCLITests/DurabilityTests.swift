import Foundation
import HearthTestSupport
import Synchronization
import Testing

/// A write acknowledged to a client survives `kill -9` of the server.
@Suite("kill -9 durability", .serialized)
struct DurabilityTests {
    struct SyncCase: CustomTestStringConvertible, Sendable {
        var id: String
        var arguments: [String]
        var testDescription: String { id }
    }

    static let syncCases: [SyncCase] = [
        .init(id: "default sync", arguments: []),
        .init(id: "--sync always", arguments: ["--sync", "always"]),
    ]

    /// Writers that record every acknowledged PUT until told to stop or the server dies.
    final class Acknowledged: Sendable {
        let values = Mutex<[String: Int]>([:])
        var count: Int { values.withLock { $0.count } }
        func record(_ key: String, _ value: Int) { values.withLock { $0[key] = value } }
    }

    @Test(arguments: syncCases)
    func everyAcknowledgedWriteSurvivesKill9(_ sync: SyncCase) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let server = try await ProcessTestServer.start(
            dataDirectory: data,
            workingDirectory: directory.url,
            arguments: sync.arguments
        )
        let acknowledged = Acknowledged()
        let writers = 4
        let target = 400

        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var index = 0
                    while true {
                        let key = "w\(writer)-\(index)"
                        let value = writer * 1_000_000 + index
                        // Alternate plain sets and multi-path updates.
                        let response: ProcessTestServer.Response
                        do {
                            if index % 2 == 0 {
                                response = try await server.request(
                                    "PUT",
                                    "/durability/\(key).json",
                                    body: "\(value)",
                                    admin: true,
                                    timeout: .seconds(10)
                                )
                            } else {
                                response = try await server.request(
                                    "PATCH",
                                    "/durability.json",
                                    body: #"{"\#(key)": \#(value)}"#,
                                    admin: true,
                                    timeout: .seconds(10)
                                )
                            }
                        } catch {
                            return  // the server is gone
                        }
                        guard response.status == 200 else { return }
                        acknowledged.record(key, value)
                        index += 1
                    }
                }
            }
            group.addTask {
                // At most two minutes (a debug build on a box the whole suite loads has taken
                // over one for 400): then the count is checked below.
                try? await eventually(timeout: .seconds(120), interval: .milliseconds(5)) {
                    acknowledged.count >= target
                }
                // Mid-stream: requests are in flight on every writer.
                server.child.send(SIGKILL)
            }
            try await group.waitForAll()
        }
        _ = try await server.child.wait(timeout: .seconds(30))
        #expect(server.child.process.terminationReason == .uncaughtSignal)
        try? await server.client.shutdown()
        let expected = acknowledged.values.withLock { $0 }
        #expect(expected.count >= target, "only \(expected.count) writes were acknowledged")

        let restarted = try await ProcessTestServer.start(
            dataDirectory: data,
            workingDirectory: directory.url,
            arguments: sync.arguments
        )
        let read = try await restarted.request("GET", "/durability.json", admin: true)
        #expect(read.status == 200)
        let stored = try JSONSerialization.jsonObject(with: Data(read.body.utf8)) as? [String: Any] ?? [:]
        var missing: [String] = []
        for (key, value) in expected where (stored[key] as? NSNumber)?.intValue != value {
            missing.append(key)
        }
        #expect(
            missing.isEmpty,
            "\(missing.count) of \(expected.count) acknowledged writes lost: \(missing.prefix(10))"
        )
        _ = try await restarted.terminate()
    }

    final class LatestRound: Sendable {
        private let value = Mutex(-1)
        func withLock<T>(_ body: (inout Int) -> T) -> T { value.withLock { body(&$0) } }
    }

    /// A multi-path update killed mid-stream is all there or not there at all after restart.
    @Test func multiPathUpdatesAreAllOrNothingAcrossKill9() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let server = try await ProcessTestServer.start(
            dataDirectory: data,
            workingDirectory: directory.url,
            arguments: []
        )
        let paths = (0..<60).map { "atom/g\($0 % 6)/k\($0)" }
        let lastAcknowledged = LatestRound()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var round = 0
                while true {
                    let body = "{" + paths.map { "\"\($0)\": \(round)" }.joined(separator: ",") + "}"
                    let response: ProcessTestServer.Response
                    do {
                        response = try await server.request(
                            "PATCH",
                            "/.json",
                            body: body,
                            admin: true,
                            timeout: .seconds(10)
                        )
                    } catch {
                        return
                    }
                    guard response.status == 200 else { return }
                    lastAcknowledged.withLock { $0 = round }
                    round += 1
                }
            }
            group.addTask {
                // At most a minute: then the count is checked below.
                try? await eventually(timeout: .seconds(60), interval: .milliseconds(2)) {
                    lastAcknowledged.withLock { $0 } >= 200
                }
                server.child.send(SIGKILL)
            }
            try await group.waitForAll()
        }
        _ = try await server.child.wait(timeout: .seconds(30))
        try? await server.client.shutdown()
        let acknowledged = lastAcknowledged.withLock { $0 }
        #expect(acknowledged >= 200)

        let restarted = try await ProcessTestServer.start(
            dataDirectory: data,
            workingDirectory: directory.url,
            arguments: []
        )
        let read = try await restarted.request("GET", "/atom.json", admin: true)
        let groups = try JSONSerialization.jsonObject(with: Data(read.body.utf8)) as? [String: [String: Any]] ?? [:]
        let values = groups.values.flatMap { $0.values.compactMap { ($0 as? NSNumber)?.intValue } }
        #expect(values.count == paths.count, "a partial update survived: \(values.count) of \(paths.count) keys")
        #expect(Set(values).count == 1, "keys from different updates: \(Set(values).sorted())")
        #expect((values.first ?? -1) >= acknowledged, "the last acknowledged update (\(acknowledged)) was lost")
        _ = try await restarted.terminate()
    }

    /// An acknowledged onDisconnect registration survives `kill -9` of the server and runs
    /// once at the next start (the connection never closed cleanly).
    @Test func onDisconnectRegisteredBeforeKill9RunsOnceAtTheNextStart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let server = try await ProcessTestServer.start(
            dataDirectory: data,
            workingDirectory: directory.url,
            arguments: []
        )
        let port = server.port
        try await onThread {
            let socket = try RawWebSocket(port: port, query: "v=5&ns=default")
            _ = try socket.readText()  // hello
            try socket.sendText(#"{"t":"d","d":{"r":1,"a":"auth","b":{"cred":"test-admin-secret"}}}"#)
            _ = try socket.awaitResponse(to: 1)
            // Not under presence/: the server keeps that itself in the chat app's namespaces.
            try socket.sendText(
                #"{"t":"d","d":{"r":2,"a":"o","b":{"p":"/status/ada","d":{"state":"offline","at":{".sv":"timestamp"}}}}}"#
            )
            let ok = try socket.awaitResponse(to: 2)
            guard ok.contains(#""s":"ok""#) else { throw TestFailure("onDisconnect refused: \(ok)") }
            // Kill the server while the socket is still open.
            server.child.send(SIGKILL)
        }
        _ = try await server.child.wait(timeout: .seconds(30))
        try? await server.client.shutdown()

        let restarted = try await ProcessTestServer.start(
            dataDirectory: data,
            workingDirectory: directory.url,
            arguments: []
        )
        let read = try await restarted.request("GET", "/status/ada/state.json", admin: true)
        #expect(read.body == #""offline""#)
        // Once: overwrite it, start again, and the old registration does not come back.
        _ = try await restarted.request("PUT", "/status/ada.json", body: #""online""#, admin: true)
        _ = try await restarted.terminate()
        let again = try await ProcessTestServer.start(
            dataDirectory: data,
            workingDirectory: directory.url,
            arguments: []
        )
        let after = try await again.request("GET", "/status/ada.json", admin: true)
        #expect(after.body == #""online""#)
        _ = try await again.terminate()
    }
}
