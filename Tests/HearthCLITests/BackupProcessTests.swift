import Foundation
import HearthTestSupport
import Synchronization
import Testing

/// `hearth backup` against a running server under load, and `hearth restore` of it.
@Suite("Backup and restore")
struct BackupProcessTests {
    final class LoadState: Sendable {
        let stop = Atomic<Bool>(false)
        let counter = Atomic<Int>(0)
    }

    @Test func aBackupTakenUnderLoadRestoresToTheSequenceItNamesWithItsAccounts() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        let idToken = try await server.signUp("ada@example.com", password: "secret1")

        // Each write puts log/wN and last = N in one update, from two writers, until stopped.
        let state = LoadState()
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        while !state.stop.load(ordering: .relaxed) {
                            let n = state.counter.add(1, ordering: .relaxed).newValue
                            let body = #"{"log/w\#(n)":\#(n),"last":\#(n)}"#
                            let answer = try await server.request("PATCH", "/.json", body: body, admin: true)
                            guard answer.status == 200 else { throw TestFailure("PATCH answered \(answer.status)") }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        try await eventually(timeout: .seconds(60)) { state.counter.load(ordering: .relaxed) > 40 }
        let backup = try await HearthProcess.run(
            ["backup", "--data", data.path, "--output", "one.backup"],
            directory: directory.url
        )
        let writtenWhileBackingUp = state.counter.load(ordering: .relaxed)
        state.stop.store(true, ordering: .relaxed)
        try await load.value
        #expect(backup.status == 0, "stderr: \(backup.stderr)")
        #expect(backup.stderr.contains("Backed up"), "\(backup.stderr)")
        let file = directory.appending("one.backup")
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600)
        _ = try await server.terminate()

        let restored = directory.appending("restored")
        let restore = try await HearthProcess.run(
            ["restore", file.path, "--data", restored.path],
            directory: directory.url
        )
        #expect(restore.status == 0, "stderr: \(restore.stderr)")
        let named = try #require(
            restore.stderr.firstMatch(of: /default at sequence (\d+)/).map { Int($0.1)! },
            "\(restore.stderr)"
        )
        #expect(named >= 40 && named <= writtenWhileBackingUp)

        let again = try await ProcessTestServer.start(dataDirectory: restored, workingDirectory: directory.url)
        // Exactly the writes up to the sequence number the backup names (one commit each), whole:
        // `last` is the number of one of them (two writers: not necessarily the highest).
        let log = try await again.request("GET", "/log.json?shallow=true", admin: true)
        let keys = try JSONSerialization.jsonObject(with: Data(log.body.utf8)) as? [String: Any]
        #expect(keys?.count == named)
        let last = try await again.request("GET", "/last.json", admin: true).body
        #expect(keys?["w\(last)"] != nil, "last = \(last) is not one of the \(keys?.count ?? 0) writes restored")
        // The account and the token key came along: the old token verifies, the password works.
        let read = try await again.request("GET", "/x.json?auth=\(idToken)")
        #expect(!read.body.contains("auth token"), "\(read.status) \(read.body)")
        let signIn = try await again.request(
            "POST",
            "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
            body: #"{"email":"ada@example.com","password":"secret1","returnSecureToken":true}"#,
            timeout: ProcessTestServer.passwordHashingTimeout
        )
        #expect(signIn.status == 200, "\(signIn.body)")
        _ = try await again.terminate()
    }

    @Test func theBackupNeedsTheAdminCredentialAndRestoreRefusesWhatItCannotTrust() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let server = try await ProcessTestServer.start(dataDirectory: data, workingDirectory: directory.url)
        #expect(try await server.request("GET", "/.backup").status == 401)
        #expect(try await server.request("GET", "/.backup?auth=wrong").status == 401)
        let wrongSecret = try await HearthProcess.run(
            ["backup", "--url", server.baseURL, "--admin-secret", "wrong", "--output", "x.backup"],
            directory: directory.url
        )
        #expect(wrongSecret.status == 1)
        #expect(wrongSecret.stderr.contains("answered 401"), "\(wrongSecret.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("x.backup").path))
        let good = try await HearthProcess.run(
            ["backup", "--url", server.baseURL, "--admin-secret", "test-admin-secret", "--output", "good.backup"],
            directory: directory.url
        )
        #expect(good.status == 0, "\(good.stderr)")
        _ = try await server.terminate()
        let noServer = try await HearthProcess.run(
            ["backup", "--data", data.path, "--output", "y.backup"],
            directory: directory.url
        )
        #expect(noServer.status == 1)
        #expect(noServer.stderr.contains("No Hearth server is running"), "\(noServer.stderr)")

        // Into a directory that holds anything: refused, nothing changed.
        let busy = try await HearthProcess.run(
            ["restore", "good.backup", "--data", data.path],
            directory: directory.url
        )
        #expect(busy.status == 1)
        #expect(busy.stderr.contains("is not empty"), "\(busy.stderr)")
        // A damaged file: refused, and the new directory is gone.
        var bytes = try Array(Data(contentsOf: directory.appending("good.backup")))
        bytes[bytes.count / 2] ^= 0xff
        try Data(bytes).write(to: directory.appending("bad.backup"))
        let damaged = try await HearthProcess.run(
            ["restore", "bad.backup", "--data", "fresh"],
            directory: directory.url
        )
        #expect(damaged.status == 1)
        #expect(
            damaged.stderr.contains("damaged") || damaged.stderr.contains("not a Hearth backup"),
            "\(damaged.stderr)"
        )
        #expect(!FileManager.default.fileExists(atPath: directory.appending("fresh").path))
    }
}
