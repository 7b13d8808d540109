import AsyncHTTPClient
import Foundation
import NIOCore

/// A streaming `GET` with `Accept: text/event-stream`, parsed into events as they arrive.
public final class SSETestStream: Sendable {
    public struct Event: Sendable, CustomStringConvertible {
        public var name: String
        public var data: String
        public var description: String { "\(name): \(data)" }

        /// `data` as JSON (`{"path":…,"data":…}` for put/patch).
        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(data.utf8), options: [.fragmentsAllowed])) as? [String: Any]
                ?? [:]
        }
    }

    /// The text received after the last whole event.
    private let partial = Locked("")
    /// Every event, in order; finished when the response body ended.
    private let inbox = AsyncInbox<Event>()

    public let status: Int
    public let contentType: String?
    /// The response's `Connection` header.
    public let connection: String?
    private let task: Task<Void, Never>

    /// Opens the stream; returns once the response head arrived.
    public static func open(port: Int, path: String, headers: [(String, String)] = []) async throws -> SSETestStream {
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
        let partial = self.partial
        let inbox = self.inbox
        task = Task {
            do {
                for try await chunk in response.body {
                    let events = partial.withLock { text -> [Event] in
                        text += String(buffer: chunk)
                        var events: [Event] = []
                        while let end = text.range(of: "\n\n") {
                            let block = text[..<end.lowerBound]
                            text.removeSubrange(..<end.upperBound)
                            var event = Event(name: "", data: "")
                            for line in block.split(separator: "\n") {
                                if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                                if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)) }
                            }
                            events.append(event)
                        }
                        return events
                    }
                    for event in events { inbox.append(event) }
                }
            } catch {}
            inbox.finish()
        }
    }

    /// The next event, in order.
    public func next(timeout: Duration = .seconds(10)) async throws -> Event {
        let event: Event?
        do {
            event = try await inbox.next(timeout: timeout)
        } catch is ConditionTimeout {
            throw TestFailure("no event within \(timeout)")
        }
        guard let event else { throw TestFailure("the stream ended while an event was awaited") }
        return event
    }

    /// The next event other than `keep-alive`.
    public func nextData(timeout: Duration = .seconds(10)) async throws -> Event {
        while true {
            let event = try await next(timeout: timeout)
            if event.name != "keep-alive" { return event }
        }
    }

    /// Waits until the response body ends.
    public func waitUntilEnded(timeout: Duration = .seconds(10)) async throws {
        do {
            try await inbox.waitUntilFinished(timeout: timeout)
        } catch is ConditionTimeout {
            throw TestFailure("the stream did not end")
        }
    }

    /// True once the response body ended (events received before may still be waiting).
    public var isEnded: Bool { inbox.isFinished }

    public func cancel() {
        task.cancel()
    }

    deinit { task.cancel() }
}
