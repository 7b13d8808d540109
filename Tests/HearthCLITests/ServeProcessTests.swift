import Foundation
import HearthTestSupport
import Testing

/// `hearth serve` as a process: start, generated admin secret, graceful stop.
@Suite("Serve", .serialized)
struct ServeProcessTests {
    @Test func printsAGeneratedAdminSecretOnceAndItIsAdmin() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ProcessTestServer.start(
            dataDirectory: directory.appending("data"),
            workingDirectory: directory.url,
            adminSecret: nil
        )
        let stdout = server.child.stdout()
        let prefix = "Admin secret (generated, shown once): "
        let lines = stdout.split(separator: "\n").filter { $0.hasPrefix(prefix) }
        #expect(lines.count == 1, "stdout: \(stdout)")
        let secret = lines.first.map { String($0.dropFirst(prefix.count)) } ?? ""
        #expect(secret.count == 43)
        #expect(secret.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })

        let write = try await server.request("PUT", "/probe.json?auth=\(secret)", body: "42")
        #expect(write.status == 200, "\(write.body)")
        let (status, _) = try await server.terminate()
        #expect(status == 0)
        #expect(!server.child.stderr().contains(secret), "the secret must never be logged")
        #expect(server.child.stdout().components(separatedBy: secret).count == 2, "shown exactly once")
    }

    @Test func givenAdminSecretIsNotPrinted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ProcessTestServer.start(
            dataDirectory: directory.appending("data"),
            workingDirectory: directory.url,
            environment: ["HEARTH_JWT_SECRET": "jwt-test-secret"]
        )
        _ = try await server.terminate()
        let output = server.child.stdout() + server.child.stderr()
        #expect(!output.contains("Admin secret (generated"))
        #expect(!output.contains("test-admin-secret"))
        #expect(!output.contains("jwt-test-secret"))
    }

    @Test func environmentVariablesConfigureTheServer() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = try FreePort.find()
        let server = try await ProcessTestServer.launch(
            ["serve"],
            environment: [
                "HEARTH_PORT": "\(port)", "HEARTH_DATA": "envdata", "HEARTH_ADMIN_SECRET": "env-secret",
                "HEARTH_SYNC": "always", "HEARTH_LOG_LEVEL": "debug",
            ],
            workingDirectory: directory.url,
            port: port,
            dataDirectory: directory.appending("envdata"),
            adminSecret: "env-secret"
        )
        let write = try await server.request("PUT", "/x.json", body: "true", admin: true)
        #expect(write.status == 200, "\(write.body)")
        let anonymous = try await server.request("PUT", "/x.json?auth=wrong", body: "false")
        #expect(anonymous.status == 401)
        #expect(FileManager.default.fileExists(atPath: directory.appending("envdata").path))
        let (status, _) = try await server.terminate()
        #expect(status == 0)
        #expect(!server.child.stdout().contains("Admin secret (generated"))
        #expect(!server.child.stderr().contains("env-secret"))
    }

    @Test func eventLoopsSetsTheNumberOfLoopThreads() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ProcessTestServer.start(
            dataDirectory: directory.appending("data"),
            workingDirectory: directory.url,
            arguments: ["--event-loops", "3"]
        )
        // NIO names the threads of its shared loop group `NIO-SGLTN-<group>-#<loop>`.
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.child.pid)/task")) ?? []
        let loops = tasks.filter { task in
            let name =
                (try? String(contentsOfFile: "/proc/\(server.child.pid)/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix("NIO-SGLTN-")
        }
        #expect(loops.count == 3)
        let write = try await server.request("PUT", "/x.json", body: "1", admin: true)
        #expect(write.status == 200)
        let (status, _) = try await server.terminate()
        #expect(status == 0)
    }

    @Test func sigtermDrainsAndExitsZeroQuickly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ProcessTestServer.start(
            dataDirectory: directory.appending("data"),
            workingDirectory: directory.url
        )
        let write = try await server.request("PUT", "/drain/a.json", body: #"{"x":1}"#, admin: true)
        #expect(write.status == 200)
        let (status, seconds) = try await server.terminate()
        #expect(status == 0, "stderr: \(server.child.stderr())")
        #expect(server.child.process.terminationReason == .exit)
        #expect(seconds < 5, "took \(seconds) s")

        // The store was closed cleanly: it opens again and kept the write.
        let again = try await ProcessTestServer.start(
            dataDirectory: directory.appending("data"),
            workingDirectory: directory.url
        )
        let read = try await again.request("GET", "/drain/a/x.json", admin: true)
        #expect(read.body == "1")
        _ = try await again.terminate()
    }

    @Test func aTakenPortFailsWithAClearMessage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ProcessTestServer.start(
            dataDirectory: directory.appending("data"),
            workingDirectory: directory.url
        )
        let second = try await HearthProcess.run(
            ["serve", "--port", "\(server.port)", "--data", "other", "--admin-secret", "x"],
            directory: directory.url,
            timeout: .seconds(30)
        )
        _ = try await server.terminate()
        #expect(second.status == 1)
        #expect(
            second.stderr.contains("Error: Cannot listen on 127.0.0.1:\(server.port): the address is already in use"),
            "stderr: \(second.stderr)"
        )
    }

    @Test func aDataDirectoryInUseFailsWithAClearMessage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ProcessTestServer.start(
            dataDirectory: directory.appending("data"),
            workingDirectory: directory.url
        )
        let second = try await HearthProcess.run(
            ["serve", "--port", "\(try FreePort.find())", "--data", "data", "--admin-secret", "x"],
            directory: directory.url,
            timeout: .seconds(30)
        )
        _ = try await server.terminate()
        #expect(second.status == 1)
        #expect(
            second.stderr.contains("Error: The data directory 'data' is in use by another Hearth server"),
            "stderr: \(second.stderr)"
        )
    }

    @Test func sigintAlsoStopsCleanly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await ProcessTestServer.start(
            dataDirectory: directory.appending("data"),
            workingDirectory: directory.url
        )
        server.child.send(SIGINT)
        #expect(try await server.child.wait(timeout: .seconds(10)) == 0)
        try? await server.client.shutdown()
    }
}
