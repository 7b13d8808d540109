import Synchronization

/// A streamed read's chunks, held until what the read's snapshot holds is committed (in a
/// cluster, a round may be in the snapshot while its append is in flight), then passed on in
/// order. The rendering never waits: until then the chunks are kept, as the stream would keep
/// chunks its consumer has not taken yet.
final class HeldChunks: Sendable {
    private struct State {
        var open = false
        var held: [[UInt8]] = []
        /// The stream's end, when it came while the chunks were held.
        var end: Result<Void, any Error>?
    }

    private let sink: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let state = Mutex(State())

    init(_ sink: AsyncThrowingStream<[UInt8], any Error>.Continuation) {
        self.sink = sink
    }

    /// Passes `chunk` on, or holds it; true once the consumer has ended the stream.
    func yield(_ chunk: [UInt8]) -> Bool {
        state.withLock { state in
            guard state.open else {
                state.held.append(chunk)
                return false
            }
            if case .terminated = sink.yield(chunk) { return true }
            return false
        }
    }

    /// What the read holds is committed: the held chunks go, then (if it came) the end.
    func open() {
        state.withLock { state in
            state.open = true
            for chunk in state.held { sink.yield(chunk) }
            state.held = []
            if let end = state.end { finish(end) }
        }
    }

    /// Ends the stream, once the chunks are passed on.
    func end(_ result: Result<Void, any Error>) {
        state.withLock { state in
            if state.open { finish(result) } else { state.end = result }
        }
    }

    private func finish(_ result: Result<Void, any Error>) {
        switch result {
        case .success: sink.finish()
        case .failure(let error): sink.finish(throwing: error)
        }
    }
}
