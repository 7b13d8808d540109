import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// One provider request: sent with the configuration's deadline, its answer's body read up to
/// the configuration's bound, a failure without an answer named by a `PushFailureReason`.
struct PushHTTPExchange: Sendable {
    let client: HTTPClient
    let configuration: PushHTTPConfiguration

    /// An answer: its status, headers and the start of its body.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]

        var isSuccess: Bool { (200..<300).contains(status) }

        /// `Retry-After` as a duration: delta-seconds, or an HTTP date from `now`.
        func retryAfter(now: Date) -> Duration? {
            guard let value = headers.first(name: "Retry-After")?.trimmingCharacters(in: .whitespaces) else {
                return nil
            }
            if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
            guard let date = Self.httpDate(value) else { return nil }
            return .seconds(max(0, Int(date.timeIntervalSince(now).rounded(.up))))
        }

        private static func httpDate(_ text: String) -> Date? {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
            return formatter.date(from: text)
        }
    }

    /// Sends `request`; an answer of any status, or the reason there was none.
    func send(_ request: HTTPClientRequest) async -> Result<Answer, PushTransportFailure> {
        let deadline = NIODeadline.now() + TimeAmount(configuration.requestTimeout)
        do {
            let response = try await client.execute(request, deadline: deadline)
            var body: [UInt8] = []
            do {
                for try await chunk in response.body {
                    let room = configuration.maxResponseBytes - body.count
                    body += chunk.readableBytesView.prefix(room)
                    if body.count >= configuration.maxResponseBytes { break }
                }
            } catch {
                // The status is the answer; a body cut short only loses an error's details.
            }
            return .success(Answer(status: Int(response.status.code), headers: response.headers, body: body))
        } catch {
            return .failure(PushTransportFailure(error))
        }
    }
}

/// A request that got no answer, and why.
struct PushTransportFailure: Error, Sendable {
    let reason: PushFailureReason
    let detail: String

    init(_ error: any Error) {
        detail = String(describing: error)
        reason = Self.reason(for: error)
    }

    static func reason(for error: any Error) -> PushFailureReason {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout:
                return .timeout
            case .remoteConnectionClosed: return .network
            default: break
            }
        }
        if error is NIOSSLError { return .tls }
        if let error = error as? ChannelError, case .connectTimeout = error { return .timeout }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH: return .connect
            case ETIMEDOUT: return .timeout
            default: return .network
            }
        }
        // NIOPosix's `NIOConnectionError` (every address refused) and name resolution failures.
        let name = String(reflecting: type(of: error))
        if name.contains("ConnectionError") || name.contains("Resolution") { return .connect }
        return .network
    }
}
