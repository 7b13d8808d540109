import NIOCore

/// What one connection's closed loop measured.
struct LoopResult: Sendable {
    /// Latencies of the measured requests, in microseconds.
    var latencies: [UInt32] = []
    /// 2xx responses, warm-up included.
    var succeeded = 0
    var errors = 0
    var firstError: String?

    /// The loops' results together, latencies sorted: every latency, the error count, the first error.
    static func merged(_ futures: [EventLoopFuture<LoopResult>]) async throws -> LoopResult {
        var merged = LoopResult()
        for future in futures {
            let result = try await future.get()
            merged.latencies += result.latencies
            merged.succeeded += result.succeeded
            merged.errors += result.errors
            merged.firstError = merged.firstError ?? result.firstError
        }
        merged.latencies.sort()
        return merged
    }
}

/// One connection, one request in flight: send, wait for the response, send the next, until the deadline.
///
/// Runs entirely on the connection's event loop (no task hop per request), so the client costs as
/// little CPU as possible on a machine it shares with the server. Requests that start before
/// `measureFrom` are a warm-up and are not recorded.
final class ClosedLoop: @unchecked Sendable {
    private let connection: HTTPConnection
    private let makeRequest: @Sendable (Int, ByteBufferAllocator) -> ByteBuffer
    private let measureFrom: NIODeadline
    private let deadline: NIODeadline
    private let maxRequests: Int
    private let done: EventLoopPromise<LoopResult>
    // Confined to connection.eventLoop.
    private var result = LoopResult()
    private var sequence = 0

    init(
        connection: HTTPConnection,
        measureFrom: NIODeadline,
        deadline: NIODeadline,
        maxRequests: Int = .max,
        makeRequest: @escaping @Sendable (Int, ByteBufferAllocator) -> ByteBuffer
    ) {
        self.connection = connection
        self.makeRequest = makeRequest
        self.measureFrom = measureFrom
        self.deadline = deadline
        self.maxRequests = maxRequests
        self.done = connection.eventLoop.makePromise(of: LoopResult.self)
        result.latencies.reserveCapacity(65_536)
    }

    /// Starts the loop; the future completes when the deadline has passed or the count is reached.
    func run() -> EventLoopFuture<LoopResult> {
        connection.eventLoop.execute { self.step() }
        return done.futureResult
    }

    private func step() {
        let start = NIODeadline.now()
        guard start < deadline, sequence < maxRequests else {
            done.succeed(result)
            return
        }
        let bytes = makeRequest(sequence, connection.allocator)
        sequence += 1
        connection.send(bytes).whenComplete { outcome in
            let measured = start >= self.measureFrom
            switch outcome {
            case .success(let response) where response.isSuccess:
                self.result.succeeded += 1
                if measured {
                    let micros = (NIODeadline.now() - start).nanoseconds / 1000
                    self.result.latencies.append(UInt32(clamping: micros))
                }
                self.step()
            case .success(let response):
                self.result.errors += 1
                if self.result.firstError == nil {
                    self.result.firstError = "HTTP \(response.status): \(response.bodyText.prefix(200))"
                }
                self.step()
            case .failure(let error):
                self.result.errors += 1
                if self.result.firstError == nil { self.result.firstError = "\(error)" }
                self.done.succeed(self.result)  // the connection is gone
            }
        }
    }
}
