import Dispatch
import HearthTestSupport
import Synchronization
import Testing

@testable import HearthAccounts

/// scrypt as CryptoExtras computes it, checked against RFC 7914 §12.
struct ScryptTests {
    struct Vector: Sendable, CustomStringConvertible {
        var password: String
        var salt: String
        var logN: Int
        var r: Int
        var p: Int
        var hex: String
        var description: String { "N=2^\(logN) r=\(r) p=\(p) '\(password)'" }
    }

    static let vectors = [
        Vector(
            password: "",
            salt: "",
            logN: 4,
            r: 1,
            p: 1,
            hex: "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
                + "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"
        ),
        Vector(
            password: "password",
            salt: "NaCl",
            logN: 10,
            r: 8,
            p: 16,
            hex: "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
                + "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        ),
        Vector(
            password: "pleaseletmein",
            salt: "SodiumChloride",
            logN: 14,
            r: 8,
            p: 1,
            hex: "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2"
                + "d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"
        ),
    ]

    @Test(arguments: vectors)
    func matchesRFC7914(_ vector: Vector) throws {
        let key = try PasswordHasher.derive(
            Array(vector.password.utf8),
            salt: Array(vector.salt.utf8),
            parameters: ScryptParameters(logN: vector.logN, blockSize: vector.r, parallelism: vector.p),
            outputByteCount: 64
        )
        let hex = key.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(hex == vector.hex)
    }

    @Test func productionParametersAreTheIssuesOnes() {
        #expect(ScryptParameters.production == ScryptParameters(logN: 15, blockSize: 8, parallelism: 1))
        #expect(ScryptParameters.production.memoryBytes == 32 << 20)
    }

    @Test func hashesAreSaltedPerPasswordAndVerifyInConstantTimeCompare() async throws {
        let hasher = PasswordHasher(parameters: .testing, threads: 1, maxQueued: 8)
        defer { hasher.shutdown() }
        let a = try await hasher.hash("correct horse")
        let b = try await hasher.hash("correct horse")
        #expect(a.salt != b.salt)
        #expect(a.key != b.key)
        #expect(try await hasher.verify("correct horse", against: a))
        #expect(try await !hasher.verify("correct horsf", against: a))
        #expect(try await !hasher.verify("correct horse", against: nil))
    }

    @Test func realParametersHashOnThePoolAndVerify() async throws {
        let hasher = PasswordHasher(parameters: .production, threads: 2, maxQueued: 8)
        defer { hasher.shutdown() }
        let clock = ContinuousClock()
        let started = clock.now
        let hash = try await hasher.hash("s3cret-passw0rd")
        let elapsed = clock.now - started
        #expect(hash.parameters == .production)
        #expect(elapsed > .milliseconds(10), "N=2^15 should cost real time, took \(elapsed)")
        #expect(try await hasher.verify("s3cret-passw0rd", against: hash))
    }

    @Test func aFullQueueIsRefusedNotGrown() async throws {
        let pool = WorkerPool(threads: 1, maxQueued: 2)
        defer { pool.shutdown() }
        let gate = Gate()
        let finished = Atomic<Int>(0)
        // Whatever happens below, the jobs are let go within 30 s, so a regression fails the
        // expectations instead of hanging the suite.
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(30))
            gate.open()
        }
        defer { watchdog.cancel() }
        // Jobs are submitted from this thread, with no child task between them, and the pool's
        // thread may or may not have taken the first one yet (it runs SCHED_IDLE, late on a
        // loaded machine): either way no more than the queue and the one thread hold is accepted.
        var accepted = 0
        for _ in 0..<10 {
            let taken = pool.submit {
                gate.wait()
                gate.open()  // lets the next job through too
                finished.add(1, ordering: .relaxed)
            }
            #expect(pool.queuedCount <= 2)
            if !taken { break }
            accepted += 1
        }
        #expect(accepted >= 2 && accepted <= 3, "accepted \(accepted) with one thread and a queue of 2")
        #expect(pool.queuedCount <= 2)
        gate.open()
        try await eventually(timeout: .seconds(60), interval: .milliseconds(5)) {
            finished.load(ordering: .relaxed) == accepted
        }
        #expect(pool.queuedCount == 0)
        #expect(await pool.run { 4 } == 4)
        pool.shutdown()
        #expect(await pool.run { 5 } == nil, "a stopped pool refuses")
    }
}

/// A one-shot latch for pool threads.
final class Gate: @unchecked Sendable {
    private let semaphore = DispatchSemaphoreBox()
    func wait() { semaphore.wait() }
    func open() { semaphore.signal() }
}

final class DispatchSemaphoreBox: @unchecked Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    func wait() { semaphore.wait() }
    func signal() { semaphore.signal() }
}
