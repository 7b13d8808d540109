import Hummingbird
import NIOCore
import Synchronization

/// A client's request body as a forward streams it to the owner, read so that the forward stops
/// reading it before Hummingbird reads on.
///
/// Hummingbird reads what is left of a request body on the connection's one iterator once the
/// response is written; a read of the forward's still waiting then would be a second reader at
/// once, which stops the process (NIO allows one). An owner that answers before it read the
/// whole body (too large, a bad credential, a session it does not know) leaves the forward's
/// upload in that state, often with its client waiting for that answer before it sends more.
/// So the answer goes out first, and `stop()`, called after it, waits for a read in progress
/// (the client's next bytes, or the end of its connection) and makes every later read of the
/// forward's end the body without touching the connection.
struct ForwardedRequestBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    fileprivate final class Gate: Sendable {
        struct State {
            var reading = false
            var stopped = false
            var waiting: [CheckedContinuation<Void, Never>] = []
        }
        let state = Mutex(State())
    }

    private let body: RequestBody
    private let gate = Gate()

    init(_ body: RequestBody) {
        self.body = body
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        fileprivate let gate: Gate

        mutating func next() async throws -> ByteBuffer? {
            let open = gate.state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.reading = true
                return true
            }
            guard open else { return nil }
            defer {
                let waiting = gate.state.withLock { state in
                    state.reading = false
                    defer { state.waiting = [] }
                    return state.waiting
                }
                for waiter in waiting { waiter.resume() }
            }
            return try await base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: body.makeAsyncIterator(), gate: gate)
    }

    /// Ends the forward's reading: waits for a read in progress to end; no later read of the
    /// forward's touches the connection.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wait = gate.state.withLock { state -> Bool in
                state.stopped = true
                guard state.reading else { return false }
                state.waiting.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
    }
}
