import Foundation
import HearthTestSupport
import Testing

/// `hearth users ...` as a process, and accounts across `kill -9` and restarts of `hearth serve`.
@Suite("Users", .serialized)
struct UsersCommandTests {
    static func users(_ arguments: [String], data: URL, stdin: URL? = nil) async throws -> HearthProcess.Result {
        try await HearthProcess.run(["users"] + arguments + ["--data", data.path], stdin: stdin)
    }

    @Test func createListDisableEnableSetPasswordDelete() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")

        let missing = try await Self.users(["list"], data: data)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("There is no Hearth data directory at '\(data.path)'."))

        let created = try await Self.users(
            ["create", "Ada@Example.com", "--password", "secret1", "--display-name", "Ada"],
            data: data
        )
        #expect(created.status == 0, "\(created.stderr)")
        let uid = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(uid.count == 28)

        let duplicate = try await Self.users(["create", "ada@example.com", "--password", "secret1"], data: data)
        #expect(duplicate.status == 1)
        #expect(
            duplicate.stderr.contains("Error: Could not create 'ada@example.com': an account with this email exists.")
        )
        let weak = try await Self.users(["create", "bob@example.com", "--password", "123"], data: data)
        #expect(weak.stderr.contains("the password must have at least 6 characters"))

        // A password from stdin.
        let input = directory.appending("password.txt")
        try "from-stdin\n".write(to: input, atomically: true, encoding: .utf8)
        let bob = try await Self.users(["create", "bob@example.com"], data: data, stdin: input)
        #expect(bob.status == 0, "\(bob.stderr)")

        let list = try await Self.users(["list"], data: data)
        #expect(list.status == 0)
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0] == "UID\tEMAIL\tSTATUS\tCREATED\tLAST SIGN-IN")
        #expect(lines[1].hasPrefix("\(uid)\tada@example.com\tenabled\t"))

        #expect(try await Self.users(["disable", "ada@example.com"], data: data).stdout == "Disabled \(uid)\n")
        let json = try await Self.users(["list", "--json"], data: data)
        #expect(json.stdout.contains("\"disabled\":true"))
        #expect(json.stdout.contains("\"displayName\":\"Ada\""))
        #expect(try await Self.users(["enable", uid], data: data).stdout == "Enabled \(uid)\n")
        #expect(try await Self.users(["set-password", uid, "--password", "secret2"], data: data).status == 0)
        #expect(try await Self.users(["delete", uid], data: data).stdout == "Deleted \(uid)\n")
        let gone = try await Self.users(["delete", uid], data: data)
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("There is no account '\(uid)'"))
        #expect(try await Self.users(["list"], data: data).stdout.split(separator: "\n").count == 2)
    }

    @Test func accountsAndTokensSurviveKill9AndRestartsAndTheCLIRefusesARunningServer() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let idToken = try await server.signUp("ada@example.com", password: "secret1")

        let busy = try await Self.users(["disable", "ada@example.com"], data: data)
        #expect(busy.status == 1)
        #expect(busy.stderr.contains("is in use by a running Hearth server"))
        #expect(busy.stderr.contains("accounts:update"))

        await server.kill()
        let secret = try String(contentsOf: data.appendingPathComponent("jwt-secret"), encoding: .utf8)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: data.appendingPathComponent("jwt-secret").path
        )
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(!server.child.stderr().contains(secret.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(!server.child.stderr().contains("secret1"))

        let list = try await Self.users(["list"], data: data)
        #expect(list.stdout.contains("\tada@example.com\tenabled\t"), "\(list.stdout) \(list.stderr)")

        // The same key after a restart: the token issued before still verifies.
        let again = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let read = try await again.request("GET", "/x.json?auth=\(idToken)")
        #expect(!read.body.contains("auth token"), "\(read.status) \(read.body)")
        let (status, _) = try await again.terminate()
        #expect(status == 0)

        // Disabled offline: the token is refused after the next start.
        #expect(try await Self.users(["disable", "ada@example.com"], data: data).status == 0)
        let third = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let refused = try await third.request("GET", "/x.json?auth=\(idToken)")
        #expect(refused.status == 401)
        #expect(refused.body.contains("revoked"))
        _ = try await third.terminate()
    }
}
