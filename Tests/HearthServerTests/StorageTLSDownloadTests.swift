import Foundation
import HearthTestSupport
import Testing

/// Under TLS a download cannot go by `sendfile` (NIOSSL encrypts buffers, not file regions): the
/// bytes are read in chunks. Driven with `curl` (a self-signed certificate made by `openssl`).
@Suite struct StorageTLSDownloadTests {
    /// `run(_:)` on a dispatch thread: waiting for `curl`, which waits for the server in this
    /// process, must not hold one of the few threads the server's tasks run on.
    static func runAside(_ arguments: [String]) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try run(arguments) }) }
        }
    }

    /// Runs `arguments[0]` (found on `PATH`) with the rest; its standard output, or a failure
    /// naming its status.
    static func run(_ arguments: [String]) throws -> Data {
        try TestCommand.run(arguments)
    }

    @Test func wholeAndRangedDownloadsOverHTTPS() async throws {
        try await TemporaryDirectory.with(prefix: "hearth-tls") { directory in
            let certificate = directory.path + "/cert.pem"
            let key = directory.path + "/key.pem"
            _ = try Self.run([
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                "-days", "1", "-subj", "/CN=127.0.0.1",
            ])
            let bytes = StorageDownloadTests.numberedLines(1 << 20 + 3)
            let source = directory.path + "/source.txt"
            try Data(bytes).write(to: URL(fileURLWithPath: source))
            try await TestServer.with(prepare: { configuration, _ in
                configuration.tlsCertificatePath = certificate
                configuration.tlsKeyPath = key
            }) { server in
                let base = "https://127.0.0.1:\(server.port)/v0/b/\(StorageClientAPITests.bucket)/o"
                let admin = "Authorization: Bearer \(TestServer.adminSecret)"
                let uploaded = try await Self.runAside([
                    "curl", "-sfk", "-H", admin, "-H", "Content-Type: text/plain", "--data-binary", "@" + source,
                    base + "?name=tls.txt",
                ])
                #expect(String(decoding: uploaded, as: UTF8.self).contains(#""size":"\#(bytes.count)""#))
                let whole = try await Self.runAside(["curl", "-sfk", "-H", admin, base + "/tls.txt?alt=media"])
                #expect(Array(whole) == bytes)
                let range = try await Self.runAside([
                    "curl", "-sfk", "-H", admin, "-H", "Range: bytes=500000-799999", base + "/tls.txt?alt=media",
                ])
                #expect(Array(range) == Array(bytes[500_000..<800_000]))
            }
        }
    }
}
