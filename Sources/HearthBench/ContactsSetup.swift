import Foundation
import NIOCore

/// A signed-up account of the `contacts` scenario with its profile.
struct ContactsAccount: Sendable {
    var uid: String
    var serial: Int
    var displayName: String
}

/// What `ContactsSetup` loaded: the registered users (the first is the caller) and the caller's ID token.
struct ContactsPopulation {
    var accounts: [ContactsAccount]
    var callerToken: String
    var report: ContactsSetupReport
}

/// Loads the `contacts` scenario's users: `--contacts-profiles` profiles at `users/u000001` …
/// written as the admin in large PATCHes (profiles without an account, so never a match), then
/// `--contacts-accounts` accounts through `accounts:signUp` (bounded concurrency; password
/// hashing is slow by design) with a profile each at `users/<localId>` (registered users).
/// Every write goes through the server's write path, which keeps the phone and name-word
/// lookup indexes in the same batch.
struct ContactsSetup {
    var target: ServerTarget
    var group: EventLoopGroup
    var options: ContactsOptions

    static let password = "bench-password-1"

    func run() async throws -> ContactsPopulation {
        let profiles = options.contactsProfiles
        progress("contacts: writing \(profiles) profiles in PATCHes of \(options.contactsProfilesPerPatch)")
        let profilesStart = monotonicNanos()
        try await writeProfiles(
            (1...profiles).map { (ContactsPeople.profileUID($0, scattered: options.contactsScatteredUids), $0) }
        )
        let profilesSeconds = seconds(since: profilesStart)

        let count = options.contactsAccounts
        progress("contacts: signing up \(count) accounts, \(options.contactsSignUpConcurrency) at a time")
        let signUpStart = monotonicNanos()
        let signedUp = try await signUp(count)
        let signUpSeconds = seconds(since: signUpStart)

        let accounts = signedUp.enumerated().map { k, account in
            let serial = ContactsPeople.accountSerialBase + k
            return ContactsAccount(uid: account.uid, serial: serial, displayName: ContactsPeople.displayName(serial))
        }
        let accountProfilesStart = monotonicNanos()
        try await writeProfiles(accounts.map { ($0.uid, $0.serial) })
        let accountProfilesSeconds = seconds(since: accountProfilesStart)
        guard let callerToken = signedUp.first?.idToken else { throw BenchError("contacts: no caller token") }
        return ContactsPopulation(
            accounts: accounts,
            callerToken: callerToken,
            report: ContactsSetupReport(
                profiles: profiles,
                scatteredUids: options.contactsScatteredUids,
                profilesSeconds: r3(profilesSeconds),
                profilesPerS: (Double(profiles) / profilesSeconds).rounded(),
                accounts: count,
                signUpSeconds: r3(signUpSeconds),
                signUpsPerS: r3(Double(count) / signUpSeconds),
                accountProfilesSeconds: r3(accountProfilesSeconds)
            )
        )
    }

    /// `PATCH /users` with `{uid: profile}` for each (uid, serial), in chunks.
    private func writeProfiles(_ users: [(uid: String, serial: Int)]) async throws {
        let chunkSize = options.contactsProfilesPerPatch
        try await withConnection(to: target, on: group.next()) { connection in
            var start = 0
            while start < users.count {
                let chunk = users[start..<min(start + chunkSize, users.count)]
                var body = Array("{".utf8)
                body.reserveCapacity(chunk.count * 120)
                for (i, user) in chunk.enumerated() {
                    if i > 0 { body.append(UInt8(ascii: ",")) }
                    body.append(contentsOf: Self.profile(uid: user.uid, serial: user.serial).utf8)
                }
                body.append(UInt8(ascii: "}"))
                let reply = try await connection.send(RequestBuilder("PATCH", "/users", body: body, target: target))
                try reply.expectSuccess("PATCH /users (profiles \(start + 1)…\(start + chunk.count))")
                start += chunk.count
            }
        }
    }

    /// `"uid":{"createdAt":…,"displayName":"…","phoneNumber":"+…","status":"…"}` (the name lists
    /// hold no quote or backslash).
    static func profile(uid: String, serial: Int) -> String {
        let createdAt = 1_704_067_200_000 + serial * 1_000
        return #""\#(uid)":{"createdAt":\#(createdAt),"displayName":"\#(ContactsPeople.displayName(serial))","#
            + #""phoneNumber":"\#(ContactsPeople.e164(serial))","status":"Hey there! I am using Fireside."}"#
    }

    /// Signs up `count` accounts over `--contacts-sign-up-concurrency` connections; answers their
    /// uids in order and the first one's ID token.
    private func signUp(_ count: Int) async throws -> [(uid: String, idToken: String?)] {
        let runID = String(UInt64(Date().timeIntervalSince1970 * 1000), radix: 36)
        let lanes = min(options.contactsSignUpConcurrency, count)
        let (target, group) = (self.target, self.group)
        var found = [(uid: String, idToken: String?)?](repeating: nil, count: count)
        try await withThrowingTaskGroup(of: [(Int, String, String)].self) { tasks in
            for lane in 0..<lanes {
                tasks.addTask {
                    try await withConnection(to: target, on: group.next()) { connection in
                        var done: [(Int, String, String)] = []
                        for k in stride(from: lane, to: count, by: lanes) {
                            let email = "contacts-\(runID)-\(k)@example.com"
                            let (uid, token) = try await Self.signUp(email, connection: connection, target: target)
                            done.append((k, uid, token))
                        }
                        return done
                    }
                }
            }
            for try await done in tasks {
                for (k, uid, token) in done { found[k] = (uid, k == 0 ? token : nil) }
            }
        }
        return found.map { $0! }
    }

    /// One `accounts:signUp`, retried while the server's hashing queue is full.
    private static func signUp(
        _ email: String,
        connection: HTTPConnection,
        target: ServerTarget
    ) async throws -> (uid: String, idToken: String) {
        let body = #"{"email":"\#(email)","password":"\#(password)","returnSecureToken":true}"#
        for _ in 0..<50 {
            let reply = try await connection.send(
                SignInScenario.request("accounts:signUp", body: body, target: target, allocator: connection.allocator)
            )
            .get()
            if !reply.isSuccess && reply.bodyText.contains("TOO_MANY_ATTEMPTS") {
                try await Task.sleep(nanoseconds: 200_000_000)
                continue
            }
            try reply.expectSuccess("accounts:signUp \(email)")
            guard let object = try? JSONSerialization.jsonObject(with: Data(reply.bodyText.utf8)) as? [String: Any],
                let uid = object["localId"] as? String, let token = object["idToken"] as? String
            else {
                throw BenchError(
                    "accounts:signUp \(email) answered no localId and idToken: \(reply.bodyText.prefix(200))"
                )
            }
            return (uid, token)
        }
        throw BenchError("accounts:signUp \(email) kept answering TOO_MANY_ATTEMPTS_TRY_LATER")
    }

    private func seconds(since start: UInt64) -> Double {
        max(Double(monotonicNanos() - start) / 1e9, 1e-9)
    }
}
