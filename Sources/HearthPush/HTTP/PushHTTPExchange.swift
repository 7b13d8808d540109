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
    ///
    /// Through the client's future-based API with `BoundedAnswer` reading the answer: the
    /// exchange runs on the connection's event loop with no task of its own, and a caller on
    /// that loop (the push queue's tasks prefer it) resumes there without a thread hop.
    func send(_ request: PushHTTPRequest) async -> Result<Answer, PushTransportFailure> {
        let deadline = NIODeadline.now() + TimeAmount(configuration.requestTimeout)
        do {
            let prepared = try HTTPClient.Request(
                url: request.url,
                method: request.method,
                headers: request.headers,
                body: .byteBuffer(request.body)
            )
            let task = client.execute(
                request: prepared,
                delegate: BoundedAnswer(limit: configuration.maxResponseBytes),
                deadline: deadline
            )
            return .success(try await task.futureResult.get())
        } catch {
            return .failure(PushTransportFailure(error))
        }
    }
}

/// A provider request: where, how, and its body.
struct PushHTTPRequest: Sendable {
    var url: URL
    var method: HTTPMethod = .POST
    var headers: HTTPHeaders = [:]
    var body: ByteBuffer
}

/// Reads an answer's status, its headers and the first `limit` bytes of its body (an error's
/// JSON); the rest of the body is read and dropped, so a 2xx with a long body still accepts.
private final class BoundedAnswer: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = PushHTTPExchange.Answer
    // Touched only on the request's event loop (the client calls the delegate there).
    private let limit: Int
    private var answer = PushHTTPExchange.Answer(status: 0, headers: [:], body: [])

    init(limit: Int) {
        self.limit = limit
    }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        answer.status = Int(head.status.code)
        answer.headers = head.headers
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let room = limit - answer.body.count
        if room > 0 { answer.body += buffer.readableBytesView.prefix(room) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        answer
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
