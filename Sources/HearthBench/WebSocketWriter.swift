import NIOCore

/// What one writer measured.
struct WriterResult: Sendable {
    /// Put→`ok` latencies of the puts sent in the measured window, in microseconds.
    var latencies: [UInt32] = []
    /// Puts answered `ok` (warm-up included).
    var acked = 0
    /// Puts sent (warm-up included); sequence numbers are 0..<sent.
    var sent = 0
    var errors = 0
    var firstError: String?
}

/// Puts over one WebSocket connection, on its event loop (no task hop per put).
///
/// `closedLoop(window:)` keeps `window` puts in flight and sends the next one as soon as one is
/// answered; `paced` sends put `i` at `start + phase + i × interval` whatever the answers (open
/// loop, so a slow server cannot slow the offered rate down). Puts sent before `measureFrom` are a
/// warm-up; nothing is sent after `deadline`, and the result is delivered once every sent put is
/// answered. The message is built by `encode(&bytes, requestID, sequence, nowNanos)` into a reused
/// buffer.
final class WebSocketWriter: @unchecked Sendable {
    enum Mode: Sendable {
        case closedLoop(window: Int)
        case paced(start: UInt64, phase: UInt64, interval: UInt64)
    }

    typealias Encoder = (inout [UInt8], _ requestID: Int, _ sequence: Int, _ nowNanos: UInt64) -> Void

    private let ws: WebSocketConnection
    private let mode: Mode
    private let measureFrom: UInt64
    private let deadline: UInt64
    private let encode: Encoder
    private let done: EventLoopPromise<WriterResult>
    // Confined to ws.eventLoop.
    private var result = WriterResult()
    private var sentAt = CircularBuffer<UInt64>(initialCapacity: 16)
    private var scratch: [UInt8] = []
    private var stopped = false
    private var finished = false

    init(
        connection: WebSocketConnection,
        mode: Mode,
        measureFrom: UInt64,
        deadline: UInt64,
        encode: @escaping Encoder
    ) {
        self.ws = connection
        self.mode = mode
        self.measureFrom = measureFrom
        self.deadline = deadline
        self.encode = encode
        self.done = connection.eventLoop.makePromise(of: WriterResult.self)
        scratch.reserveCapacity(256)
        result.latencies.reserveCapacity(1 << 16)
    }

    /// Starts; the future completes when the deadline has passed and every sent put is answered.
    func run() -> EventLoopFuture<WriterResult> {
        ws.eventLoop.execute {
            self.ws.onResponse = { id, ok, message in self.answered(ok: ok, message) }
            self.ws.onClose = { reason in
                self.result.errors += 1
                if self.result.firstError == nil { self.result.firstError = reason }
                self.stopped = true
                self.sentAt.removeAll()
                self.finish()
            }
            switch self.mode {
            case .closedLoop(let window):
                for _ in 0..<max(window, 1) where !self.stopped { self.sendNext() }
            case .paced:
                self.scheduleNext()
            }
        }
        return done.futureResult
    }

    private func sendNext() {
        let now = monotonicNanos()
        guard now < deadline else {
            stopped = true
            finish()
            return
        }
        scratch.removeAll(keepingCapacity: true)
        encode(&scratch, ws.takeRequestID(), result.sent, now)
        result.sent += 1
        sentAt.append(now)
        ws.sendText(scratch)
    }

    private func scheduleNext() {
        guard case .paced(let start, let phase, let interval) = mode, !stopped else { return }
        let at = start + phase + UInt64(result.sent) * interval
        ws.eventLoop.scheduleTask(deadline: .uptimeNanoseconds(at)) {
            self.sendNext()
            self.scheduleNext()
        }
    }

    private func answered(ok: Bool, _ message: UnsafeRawBufferPointer) {
        let now = monotonicNanos()
        let start = sentAt.popFirst() ?? now
        if ok {
            result.acked += 1
            if start >= measureFrom {
                result.latencies.append(UInt32(clamping: (now &- start) / 1000))
            }
        } else {
            result.errors += 1
            if result.firstError == nil {
                result.firstError = String(decoding: message.prefix(300), as: UTF8.self)
            }
        }
        if case .closedLoop = mode, !stopped {
            sendNext()
        } else {
            finish()
        }
    }

    private func finish() {
        guard stopped, sentAt.isEmpty, !finished else { return }
        finished = true
        ws.onResponse = nil
        ws.onClose = nil
        done.succeed(result)
    }
}
