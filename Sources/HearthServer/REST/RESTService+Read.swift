import HearthCore
import HearthDatabase
import Hummingbird

extension RESTService {
    /// `GET`: the value, a shallow listing, or a query's selected children, read by the
    /// database (which judges the read by the rules in the snapshot it reads).
    func read(_ call: Call, path: DataPath, isPriority: Bool, in engine: NamespaceEngine) async throws -> Response {
        let options = call.options
        let selection: ReadRequest.Selection
        if isPriority {
            selection = .priority
        } else if let shallow = options.shallow {
            selection = .shallow(startAfter: shallow.startAfter, limit: shallow.limit)
        } else {
            selection = .value(query: options.query)
        }
        if case .value(nil) = selection, options.print == .compact, options.callback == nil, options.timeout == nil,
            !call.wantsETag, call.ifNoneMatch == nil
        {
            return try await readStreamed(call, path: path, in: engine)
        }
        let request = ReadRequest(
            path: path,
            selection: selection,
            format: options.format,
            wantsETag: call.wantsETag,
            ifNoneMatch: call.ifNoneMatch
        )
        let caller = call.caller
        let result = try await Self.withTimeout(options.timeout) { try await engine.read(request, as: caller) }
        switch result {
        case .notModified(let etag):
            return ResponseBuilder.notModified(etag: etag)
        case .found(let content, let etag):
            var body: [UInt8] = []
            switch content {
            case .json(let json): body = json
            case .shallow(let shallow): Self.renderShallow(shallow, into: &body)
            case .priority(let priority): Self.renderPriority(priority, into: &body)
            }
            let response = ResponseBuilder.json(
                body,
                print: options.print,
                etag: call.wantsETag ? etag : nil,
                callback: options.callback
            )
            return Self.offeringDownload(response, of: path, options)
        }
    }

    /// `response` as an attachment when the read asked for a download (`download=`).
    private static func offeringDownload(_ response: Response, of path: DataPath, _ options: RESTOptions) -> Response {
        guard let download = options.download else { return response }
        var response = response
        let name = download.isEmpty ? ResponseBuilder.downloadName(for: path) : download
        response.headers[.contentDisposition] = ResponseBuilder.attachment(named: name)
        return response
    }

    /// A value sent as it is rendered (chunked), so a large one's first bytes leave at once:
    /// the plain `GET` of a value, compact, without an ETag, a query, a callback or a timeout
    /// (those are rendered whole first).
    private func readStreamed(_ call: Call, path: DataPath, in engine: NamespaceEngine) async throws -> Response {
        let chunks = try await engine.readChunks(
            at: path,
            format: call.options.format,
            chunkSize: Self.streamedChunkSize,
            as: call.caller
        )
        // A value of one chunk is sent whole, with its length, as any other answer.
        let source = ChunkSource(chunks)
        let first = try await source.next() ?? []
        var response = ResponseBuilder.json(first)
        if let second = try await source.next() {
            response.body = ResponseBody { writer in
                try await writer.write(ByteBuffer(bytes: first))
                try await writer.write(ByteBuffer(bytes: second))
                while let chunk = try await source.next() {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
                try await writer.finish(nil)
            }
        }
        return Self.offeringDownload(response, of: path, call.options)
    }

    /// The size of a streamed value's chunks: the first leaves after this much is rendered.
    static let streamedChunkSize = 256 * 1024

    static func renderPriority(_ priority: Priority?, into body: inout [UInt8]) {
        switch priority {
        case nil: body.append(contentsOf: "null".utf8)
        case .number(let n)?: CoreBridge.render(.leaf(.number(n), priority: nil), format: .plain, into: &body)
        case .string(let s)?: body.append(contentsOf: JSONText.quoted(s).utf8)
        }
    }

    /// Shallow JSON: leaf children by value, other children as `true`.
    static func renderShallow(_ result: ShallowResult, into body: inout [UInt8]) {
        switch result {
        case .null:
            body.append(contentsOf: "null".utf8)
        case .leaf(let value):
            CoreBridge.render(.leaf(value, priority: nil), format: .plain, into: &body)
        case .children(let children):
            body.append(UInt8(ascii: "{"))
            for (index, child) in children.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body.append(contentsOf: JSONText.quoted(child.key.string).utf8)
                body.append(UInt8(ascii: ":"))
                CoreBridge.render(.leaf(child.leaf ?? .bool(true), priority: nil), format: .plain, into: &body)
            }
            body.append(UInt8(ascii: "}"))
        }
    }

    /// Runs `work`, failing with 400 when a `timeout` is set and passes first.
    static func withTimeout<T: Sendable>(
        _ timeout: Duration?,
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard let timeout else { return try await work() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw RESTError.badRequest("The read did not finish within the timeout of \(timeout).")
            }
            return value
        }
    }
}

/// The one iterator of a streamed read's chunks, taken from one task at a time: the answer's
/// first two chunks before it starts, the rest by its body's writer.
private final class ChunkSource: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator

    init(_ chunks: AsyncThrowingStream<[UInt8], any Error>) {
        iterator = chunks.makeAsyncIterator()
    }

    func next() async throws -> [UInt8]? {
        try await iterator.next()
    }
}
