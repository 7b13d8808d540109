import Synchronization

/// A connection's bounded outbound queue: the connection's loop enqueues without waiting, one
/// writer task drains everything queued at once and writes it. Bytes count until written, so a
/// client that stops reading is caught after `maxBytes`; `enqueue` then refuses and the loop
/// closes the connection (slow consumer).
final class OutboundQueue: Sendable {
    /// How the queue ends once what is queued has been written.
    enum Ending: Sendable, Equatable {
        /// Just stop.
        case finish
        /// Send a WebSocket close frame (SSE: end the stream).
        case close(code: UInt16, reason: String)
    }

    /// What the writer takes in one go.
    struct Batch: Sendable {
        var frames: [[UInt8]]
        var byteCount: Int
        /// Set on the last batch.
        var ending: Ending?
    }

    private struct State {
        var frames: [[UInt8]] = []
        var queuedBytes = 0
        var writingBytes = 0
        var ending: Ending?
        var done = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    let maxBytes: Int
    private let state = Mutex(State())

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    /// Appends `frames` (one batch, kept together). False when the queue is over its limit (or
    /// ending): nothing was added. An empty queue always accepts one batch.
    func enqueue(_ frames: [[UInt8]]) -> Bool {
        guard !frames.isEmpty else { return true }
        let size = frames.reduce(0) { $0 + $1.count }
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.ending == nil, !state.done else { return (false, nil) }
            let pending = state.queuedBytes + state.writingBytes
            if pending > 0, pending + size > maxBytes { return (false, nil) }
            state.frames.append(contentsOf: frames)
            state.queuedBytes += size
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        guard accepted else { return false }
        waiter?.resume()
        return true
    }

    /// Bytes queued or being written.
    var pendingBytes: Int { state.withLock { $0.queuedBytes + $0.writingBytes } }

    /// Ends the queue after what is queued (or, with `discardPending`, at once).
    func end(_ ending: Ending, discardPending: Bool = false) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.ending == nil else { return nil }
            state.ending = ending
            if discardPending {
                state.frames = []
                state.queuedBytes = 0
            }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The next batch: everything queued. Nil once the queue has ended and all was taken.
    /// Only one task may call it; it reports each batch back with `written(_:)`.
    func next() async -> Batch? {
        while true {
            let result = state.withLock { state -> Batch?? in
                if state.done { return .some(nil) }
                if !state.frames.isEmpty || state.ending != nil {
                    let batch = Batch(frames: state.frames, byteCount: state.queuedBytes, ending: state.ending)
                    state.frames = []
                    state.writingBytes += state.queuedBytes
                    state.queuedBytes = 0
                    if state.ending != nil { state.done = true }
                    return .some(batch)
                }
                return nil
            }
            if let result { return result }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        if !state.frames.isEmpty || state.ending != nil || Task.isCancelled { return true }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.ending = state.ending ?? .finish
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
    }

    /// The writer finished writing a batch of `byteCount` bytes.
    func written(_ byteCount: Int) {
        state.withLock { $0.writingBytes -= byteCount }
    }
}
