import HearthCore
import HearthFuzzSupport

/// The streaming JSON parser of imports (`JSONEventParser`): fed in chunks cut anywhere, it reports the
/// same events (or the same refusal) as fed the whole document, and what it accepts `TreeParser` accepts.
enum JSONEventsFuzz {
    static let target = FuzzTarget(name: "json-events") { input in
        guard let first = input.first else { return }
        let document = UnsafeRawBufferPointer(rebasing: input.dropFirst())
        // The first byte chooses the chunk size (1 to 16 bytes).
        let chunkSize = Int(first % 16) + 1
        let whole = events(of: document, chunkSize: max(document.count, 1))
        let chunked = events(of: document, chunkSize: chunkSize)
        require(whole == chunked, "chunks of \(chunkSize) bytes give \(chunked), the whole gives \(whole)")
        if whole != nil {
            // TreeParser is stricter (it also reads `.sv`), never looser: an import it accepts is data.
            require((try? TreeParser.parse(document, at: .root)) != nil, "an import TreeParser refuses")
        }
    }

    /// The events, or nil when the parser refuses the document.
    static func events(of document: UnsafeRawBufferPointer, chunkSize: Int) -> [JSONEventParser.Event]? {
        var parser = JSONEventParser()
        var events: [JSONEventParser.Event] = []
        do {
            var start = 0
            while start < document.count {
                let end = min(start + chunkSize, document.count)
                try parser.feed(buffer: UnsafeRawBufferPointer(rebasing: document[start..<end])) { events.append($0) }
                start = end
            }
            try parser.finish { events.append($0) }
            return events
        } catch {
            return nil
        }
    }
}
