import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Sends a request target byte for byte (HTTP clients re-encode invalid escapes), answering
/// the status code and body.
public enum RawHTTP {
    /// Runs the blocking socket calls on a thread of their own, off the cooperative pool the
    /// server's handlers need.
    public static func send(port: Int, method: String, target: String, body: String = "") async throws -> (Int, String)
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { try sendBlocking(port: port, method: method, target: target, body: body) }
                )
            }
        }
    }

    public static func sendBlocking(port: Int, method: String, target: String, body: String) throws -> (Int, String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        defer { close(fd) }
        guard connectLoopback(fd, port: port) else { throw TestFailure("connect failed") }
        let request =
            "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n\(body)"
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        let text = String(decoding: response, as: UTF8.self)
        let statusLine = text.prefix { $0 != "\r" }
        let code = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        return (code, body)
    }
}
