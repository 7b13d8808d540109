import Foundation
import HearthTestSupport
import Testing

/// Large request bodies against a real `hearth serve`: refused ones are answered before they
/// are sent and never reach the server's memory (its RSS from /proc is measured).
struct BodyMemoryProcessTests {
    static let host = "Host: 127.0.0.1\r\n"

    /// The resident set and its peak (`VmRSS`, `VmHWM`) of process `pid`, in KiB.
    static func memory(of pid: Int32) throws -> (rss: Int, peak: Int) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// `count` uploads of `length` bytes at once; each answer, and the body bytes sent before it.
    static func upload(
        port: Int,
        count: Int,
        length: Int,
        target: String,
        chunked: Bool = false
    ) async throws -> [(status: Int?, sent: Int)] {
        try await withThrowingTaskGroup(of: (Int?, Int).self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await onThread {
                        let connection = try RawConnection(port: port)
                        let framing = chunked ? "Transfer-Encoding: chunked" : "Content-Length: \(length)"
                        connection.send("PUT \(target) HTTP/1.1\r\n\(host)\(framing)\r\n\r\n")
                        var sent = 0
                        if chunked {
                            let piece = "10000\r\n" + String(repeating: "x", count: 1 << 16) + "\r\n"
                            while sent < length, !connection.readable(within: 0), connection.send(piece) {
                                sent += 1 << 16
                            }
                        } else {
                            sent = connection.sendBody(count: length)
                        }
                        let response = try connection.readResponse(timeout: .seconds(30))
                        return (response?.status, sent)
                    }
                }
            }
            var results: [(status: Int?, sent: Int)] = []
            for try await result in group { results.append(result) }
            return results
        }
    }

    @Test func refusedBodiesAreNotBuffered() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.appending("rules"), withIntermediateDirectories: true)
        try #"{"rules": {".read": true, ".write": "auth != null"}}"#.write(
            to: directory.appending("rules/database.rules.json"),
            atomically: true,
            encoding: .utf8
        )
        let server = try await ProcessTestServer.start(
            dataDirectory: directory.appending("data"),
            workingDirectory: directory.url,
            arguments: ["--max-body-bytes", "\(16 << 20)"]
        )
        do {
            let pid = server.child.pid
            let before = try Self.memory(of: pid)
            let length = 200 << 20

            // Anonymous PUTs to a path the rules deny: 401 from the head alone.
            let denied = try await Self.upload(port: server.port, count: 4, length: length, target: "/x.json")
            let afterDenied = try Self.memory(of: pid)
            // Admin PUTs announcing more than --max-body-bytes: 413 from the head alone.
            let admin = "/x.json?auth=test-admin-secret"
            let announced = try await Self.upload(port: server.port, count: 4, length: length, target: admin)
            // Chunked admin PUTs: 413 once 16 MiB were read.
            let chunked = try await Self.upload(
                port: server.port,
                count: 4,
                length: length,
                target: admin,
                chunked: true
            )
            let after = try Self.memory(of: pid)
            print(
                "hearth serve RSS (KiB): before \(before.rss), peak after 4 denied 200 MiB PUTs \(afterDenied.peak), "
                    + "peak after 4 announced-too-large and 4 chunked-too-large PUTs \(after.peak), now \(after.rss); "
                    + "body bytes sent before the answers: denied \(denied.map(\.sent)), "
                    + "announced \(announced.map(\.sent)), chunked \(chunked.map(\.sent))"
            )
            #expect(denied.allSatisfy { $0.status == 401 && $0.sent < length }, "\(denied)")
            #expect(announced.allSatisfy { $0.status == 413 && $0.sent < length }, "\(announced)")
            #expect(chunked.allSatisfy { $0.status == 413 && $0.sent < length }, "\(chunked)")
            // 800 MiB of denied bodies move the peak by less than one of them would.
            #expect(afterDenied.peak - before.rss < 32 << 10)
            // Four chunked bodies are cut at 16 MiB each (arrays grow by doubling: up to twice that).
            #expect(after.peak - before.rss < 192 << 10)
            #expect(server.child.stderr().contains("open-file limit"), "stderr: \(server.child.stderr())")
        } catch {
            await server.kill()
            throw error
        }
        _ = try await server.terminate()
    }
}
