import Foundation
import NIOCore

/// `sign-in`: Firebase Auth `accounts:signInWithPassword` calls per second with N concurrent
/// keep-alive clients (each signing in its own account, created first with `accounts:signUp`).
/// Bound by scrypt (N=2^15, r=8, p=1) on the server's hashing pool.
struct SignInScenario {
    var target: ServerTarget
    var group: EventLoopGroup
    var clients: Int
    var seconds: Double
    var warmupSeconds: Double

    static let password = "bench-password-1"

    func run() async throws -> SignInReport {
        let runID = String(UInt64(Date().timeIntervalSince1970 * 1000), radix: 36)
        let emails = (0..<clients).map { "bench-\(runID)-\($0)@example.com" }
        progress("sign-in: signing up \(clients) accounts")
        try await withConnection(to: target, on: group.next()) { connection in
            for email in emails {
                let body = #"{"email":"\#(email)","password":"\#(Self.password)","returnSecureToken":true}"#
                try await connection.send(
                    Self.request("accounts:signUp", body: body, target: target, allocator: connection.allocator)
                )
                .get().expectSuccess("accounts:signUp \(email)")
            }
        }
        progress("sign-in: \(clients) client(s), \(warmupSeconds) s warm-up + \(seconds) s")
        var connections: [HTTPConnection] = []
        for _ in 0..<clients { connections.append(try await HTTPConnection.connect(to: target, on: group.next())) }
        let measureFrom = NIODeadline.now() + .nanoseconds(Int64(warmupSeconds * 1e9))
        let deadline = measureFrom + .nanoseconds(Int64(seconds * 1e9))
        var futures: [EventLoopFuture<LoopResult>] = []
        for (connection, email) in zip(connections, emails) {
            let body = #"{"email":"\#(email)","password":"\#(Self.password)","returnSecureToken":true}"#
            let target = self.target
            let loop = ClosedLoop(connection: connection, measureFrom: measureFrom, deadline: deadline) {
                _,
                allocator in
                Self.request("accounts:signInWithPassword", body: body, target: target, allocator: allocator)
            }
            futures.append(loop.run())
        }
        let merged = try await LoopResult.merged(futures)
        let (latencies, errors, firstError) = (merged.latencies, merged.errors, merged.firstError)
        for connection in connections { await connection.close() }
        return SignInReport(
            clients: clients,
            seconds: seconds,
            signIns: latencies.count,
            signInsPerS: r3(Double(latencies.count) / seconds),
            p50Ms: r3(percentile(latencies, 50) / 1000),
            p99Ms: r3(percentile(latencies, 99) / 1000),
            maxMs: r3(Double(latencies.last ?? 0) / 1000),
            errors: errors,
            firstError: firstError
        )
    }

    /// `POST /identitytoolkit.googleapis.com/v1/accounts:<operation>?key=bench` with a JSON body.
    static func request(
        _ operation: String,
        body: String,
        target: ServerTarget,
        allocator: ByteBufferAllocator
    )
        -> ByteBuffer
    {
        jsonPOST(
            "/identitytoolkit.googleapis.com/v1/\(operation)",
            query: "key=bench",
            body: Array(body.utf8),
            target: target,
            allocator: allocator
        )
    }
}

/// What `sign-in` measured.
struct SignInReport: Encodable, Sendable {
    var clients: Int
    var seconds: Double
    var signIns: Int
    var signInsPerS: Double
    var p50Ms: Double
    var p99Ms: Double
    var maxMs: Double
    var errors: Int
    var firstError: String?
}

/// The benchmark's JSON report with the `sign_in` section added.
struct BenchOutputWithSignIn: Encodable {
    var output: BenchOutputWithRules
    var signIn: SignInReport?

    private enum Keys: String, CodingKey {
        case signIn
    }

    func encode(to encoder: Encoder) throws {
        try output.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(signIn, forKey: .signIn)
    }
}
