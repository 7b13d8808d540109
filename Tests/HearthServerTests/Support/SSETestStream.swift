import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// A streaming `GET` with `Accept: text/event-stream`, parsed into events as they arrive.
final class SSETestStream: Sendable {
    struct Event: Sendable, CustomStringConvertible {
        var name: String
        var data: String
        var description: String { "\(name): \(data)" }

        /// `data` as JSON (`{"path":…,"data":…}` for put/patch).
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(data.utf8), options: [.fragmentsAllowed])) as? [String: Any]
                ?? [:]
        }
    }

    private struct State {
        var text = ""
        var events: [Event] = []
        var ended = false
    }

    let status: Int
    let contentType: String?
    /// The response's `Connection` header.
    let connection: String?
    private let state = Locked(State())
    private let task: Task<Void, Never>

    /// Opens the stream; returns once the response head arrived.
    static func open(port: Int, path: String, headers: [(String, String)] = []) async throws -> SSETestStream {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(3600))
        return SSETestStream(response: response)
    }

    private init(response: HTTPClientResponse) {
        status = Int(response.status.code)
        contentType = response.headers.first(name: "Content-Type")
        connection = response.headers.first(name: "Connection")
        let state = self.state
        task = Task {
            do {
                for try await chunk in response.body {
                    state.withLock { state in
                        state.text += String(buffer: chunk)
                        while let end = state.text.range(of: "\n\n") {
                            let block = state.text[..<end.lowerBound]
                            state.text.removeSubrange(..<end.upperBound)
                            var event = Event(name: "", data: "")
                            for line in block.split(separator: "\n") {
                                if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                                if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)) }
                            }
                            state.events.append(event)
                        }
                    }
                }
            } catch {}
            state.withLock { $0.ended = true }
        }
    }

    /// The next event, in order.
    func next(timeout: Duration = .seconds(10)) async throws -> Event {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (event, ended) = state.withLock { state -> (Event?, Bool) in
                if !state.events.isEmpty { return (state.events.removeFirst(), false) }
                return (nil, state.ended)
            }
            if let event { return event }
            if ended { throw TestFailure("the stream ended while an event was awaited") }
            guard ContinuousClock.now < deadline else { throw TestFailure("no event within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The next event other than `keep-alive`.
    func nextData(timeout: Duration = .seconds(10)) async throws -> Event {
        while true {
            let event = try await next(timeout: timeout)
            if event.name != "keep-alive" { return event }
        }
    }

    /// Waits until the response body ends.
    func waitUntilEnded(timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !state.withLock({ $0.ended }) {
            guard ContinuousClock.now < deadline else { throw TestFailure("the stream did not end") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func cancel() {
        task.cancel()
    }

    deinit { task.cancel() }
}

/// A `Mutex` behind a reference, to share with tasks.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: sending Value) {
        mutex = Mutex(value)
    }

    func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try mutex.withLock(body)
    }
}
