import NIOCore
import NIOHTTP1

/// What one HTTP/1 connection is doing, as `HTTPConnectionGuard` sees it between NIO's parser
/// and the rest of the pipeline, and what the guard must do about it. No I/O, no clock: each
/// event takes `now` and returns an action.
///
/// - Deadlines: the head of a request must be complete `headerTimeout` after the connection
///   opened (or after the first byte of a later request); an idle keep-alive connection, or a
///   request body that pauses, lasts `idleTimeout`. A body must also keep an average of
///   `minBodyBytesPerSecond` after a grace of `headerTimeout` (a body dribbled a byte at a
///   time, each byte before the idle timeout, is closed all the same). While the server works
///   on a request (an SSE stream included) there is no deadline.
/// - A parse error with no request in progress is answered here (400, 431) and the connection
///   closed; inside a body it reaches the body's reader, whose answer closes the connection.
/// - A response that completes before its request's body was read says `Connection: close`,
///   and the connection lingers (drops what still arrives) until the client closes or
///   `lingerTimeout` passes, instead of reading the rest of the body.
/// - A request that is not keep-alive (`Connection: close`, or HTTP/1.0 without keep-alive),
///   and a response that says `Connection: close`, close the connection fully once that
///   response is written: it does not wait for the client to close (a client that never does
///   would hold its place under the connection caps until the idle timeout).
struct HTTPConnectionState {
    struct Limits {
        var headerTimeout: TimeAmount
        var idleTimeout: TimeAmount
        var lingerTimeout: TimeAmount
        var maxRequestLineBytes: Int
        var maxHeaderBytes: Int
        /// Nil: a body is only bound by `idleTimeout` between its bytes.
        var minBodyBytesPerSecond: Int? = nil
    }

    enum Action: Equatable {
        case none
        /// Pass the inbound data or event on.
        case forward
        /// Drop the inbound data or event.
        case drop
        /// Answer with `refusal` and close the connection (lingering).
        case refuse(HTTPRefusal)
        /// Mark the response being written `Connection: close`.
        case markClose
        /// After this response's last part: close the connection (`linger`: close only its
        /// output and drop what still arrives until `lingerTimeout`).
        case closeAfterWrite(linger: Bool)
        /// Close the connection now; `abortingBody`: a request body was being received, and
        /// its reader must see an error, not a body that ended early.
        case close(abortingBody: Bool)
    }

    let limits: Limits

    /// When the connection is closed unless something happens first.
    private(set) var deadline: NIODeadline?
    /// No request head is in progress: the next byte starts a request line.
    private var betweenRequests = true
    /// Bytes of the next request arrived (its head is in progress).
    private var headStarted = false
    private var requestLineBytes = 0
    private var requestLineEnded = false
    /// Requests received, and responses ended, since the connection opened.
    private var requestsReceived = 0
    private var responsesEnded = 0
    /// Requests received whose response has not ended (a response the connection sent on its
    /// own, a refusal, answers no request).
    private var unanswered: Int { max(0, requestsReceived - responsesEnded) }
    /// The number (in `requestsReceived`) of the first request that was not keep-alive: the
    /// connection closes after its response.
    private var lastRequest: Int?
    /// A request head was received and its body has not ended.
    private var bodyOpen = false
    /// When the head of the body being received arrived, and the body's bytes since.
    private var bodyStart: NIODeadline?
    private var bodyBytes = 0
    private var responseOpen = false
    private var closeAfterResponse = false
    /// The connection answered its last response; everything inbound is dropped.
    private(set) var closing = false

    init(limits: Limits, now: NIODeadline) {
        self.limits = limits
        self.deadline = now + limits.headerTimeout
    }

    /// Raw bytes go to the request line being received (`received` wants to see them).
    var measuresRequestLine: Bool { betweenRequests && !requestLineEnded && !closing }

    /// Raw bytes arrived; `lineEnd` is the offset of the first line feed in them, if any.
    mutating func received(byteCount: Int, lineEnd: Int?, now: NIODeadline) -> Action {
        if closing { return .drop }
        guard betweenRequests, !requestLineEnded else { return .forward }
        if !headStarted {
            headStarted = true
            if unanswered == 0 { deadline = now + limits.headerTimeout }
        }
        requestLineBytes += lineEnd ?? byteCount
        if requestLineBytes > limits.maxRequestLineBytes {
            return refuse(.targetTooLong(limits.maxRequestLineBytes))
        }
        if lineEnd != nil { requestLineEnded = true }
        return .forward
    }

    /// A request head arrived; `keepAlive`: the client lets the connection stay open after it.
    mutating func headReceived(keepAlive: Bool = true, now: NIODeadline) -> Action {
        if closing { return .drop }
        requestsReceived += 1
        if !keepAlive, lastRequest == nil { lastRequest = requestsReceived }
        betweenRequests = false
        headStarted = false
        requestLineBytes = 0
        requestLineEnded = false
        bodyOpen = true
        bodyStart = now
        bodyBytes = 0
        deadline = bodyDeadline(now: now)
        return .forward
    }

    /// `byteCount` bytes of the request body arrived.
    mutating func bodyReceived(byteCount: Int = 0, now: NIODeadline) -> Action {
        if closing { return .drop }
        if bodyOpen {
            bodyBytes += byteCount
            deadline = bodyDeadline(now: now)
        }
        return .forward
    }

    /// The next pause may last `idleTimeout`, and the body so far may not be slower than
    /// `minBodyBytesPerSecond` after the grace of `headerTimeout`.
    private func bodyDeadline(now: NIODeadline) -> NIODeadline {
        let idle = now + limits.idleTimeout
        guard let rate = limits.minBodyBytesPerSecond, rate > 0, let bodyStart else { return idle }
        let earned = TimeAmount.nanoseconds(Int64(clamping: bodyBytes / rate) * 1_000_000_000)
        return min(idle, bodyStart + limits.headerTimeout + earned)
    }

    mutating func requestEnded(now: NIODeadline) -> Action {
        if closing { return .drop }
        bodyOpen = false
        bodyStart = nil
        betweenRequests = true
        deadline = unanswered > 0 ? nil : now + limits.idleTimeout
        return .forward
    }

    /// The parser failed (`error` is its error when it is an `HTTPParserError`).
    mutating func parseFailed(_ error: HTTPParserError?) -> Action {
        if closing { return .drop }
        if bodyOpen {
            // The body's reader fails with it; its answer closes the connection.
            closeAfterResponse = true
            return .forward
        }
        if unanswered > 0 || responseOpen {
            closeAfterResponse = true
            return .drop
        }
        return refuse(.malformed(error ?? .unknown, maxHeaderBytes: limits.maxHeaderBytes))
    }

    /// A response head is being written; `closes`: it says `Connection: close`.
    mutating func responseHeadWritten(status: HTTPResponseStatus, closes: Bool = false) -> Action {
        if status.code < 200 { return .none }
        responseOpen = true
        if bodyOpen || closes { closeAfterResponse = true }
        if let lastRequest, responsesEnded + 1 >= lastRequest { closeAfterResponse = true }
        return closeAfterResponse ? .markClose : .none
    }

    mutating func responseEnded(now: NIODeadline) -> Action {
        guard responseOpen else { return .none }
        responseOpen = false
        responsesEnded += 1
        if closeAfterResponse {
            closing = true
            deadline = nil
            return .closeAfterWrite(linger: bodyOpen)
        }
        if unanswered == 0 {
            deadline = now + (headStarted ? limits.headerTimeout : limits.idleTimeout)
        }
        return .none
    }

    /// The server is shutting down: close now when no request is in progress, else after the
    /// response.
    mutating func quiesce() -> Action {
        if closing { return .none }
        if unanswered == 0, !responseOpen {
            closing = true
            deadline = nil
            return .close(abortingBody: false)
        }
        closeAfterResponse = true
        return .none
    }

    /// The deadline's timer fired.
    mutating func deadlinePassed(now: NIODeadline) -> Action {
        guard let deadline, now >= deadline, !closing else { return .none }
        if headStarted, unanswered == 0, !responseOpen {
            return refuse(.headerTimeout(Duration(limits.headerTimeout)))
        }
        closing = true
        self.deadline = nil
        return .close(abortingBody: bodyOpen)
    }

    private mutating func refuse(_ refusal: HTTPRefusal) -> Action {
        if unanswered > 0 || responseOpen {
            // A response is due first: close after it.
            closeAfterResponse = true
            return .drop
        }
        closing = true
        deadline = nil
        return .refuse(refusal)
    }
}
