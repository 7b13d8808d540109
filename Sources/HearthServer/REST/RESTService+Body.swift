import HTTPTypes
import HearthCore
import Hummingbird

extension RESTService {
    /// Runs `use` with the request body, read into memory within the limits: 413 as soon as
    /// `Content-Length` or the bytes read pass `maxRequestBodyBytes` (the rest is not read: the
    /// connection closes after the answer), 503 when the bodies in flight would pass the body
    /// memory limit, 400 over the request's `writeSizeLimit`. The body's bytes count against
    /// the memory limit until `use` returns.
    func withBody<T>(
        of request: Request,
        options: RESTOptions,
        _ use: ([UInt8]) async throws -> T
    ) async throws -> T {
        let limit = maxRequestBodyBytes
        let announced = Self.announcedBytes(request)
        if let announced, announced > limit { throw Self.bodyTooLarge(limit) }
        var bytes: [UInt8] = []
        var reserved = 0
        defer { bodyMemory.release(reserved) }
        for try await part in request.body {
            let count = part.readableBytes
            guard bytes.count + count <= limit else { throw Self.bodyTooLarge(limit) }
            guard bodyMemory.reserve(count) else { throw BodyMemoryBudget.exhausted }
            reserved += count
            if let announced, bytes.count + count > bytes.capacity {
                // Grow as the bytes arrive (an announced length is not memory yet), never past it.
                bytes.reserveCapacity(min(announced, max(bytes.capacity * 2, bytes.count + count)))
            }
            bytes.append(contentsOf: part.readableBytesView)
        }
        if let sizeLimit = options.writeSizeLimit?.maxBytes, bytes.count > sizeLimit {
            throw RESTError.badRequest(WriteSizeLimit.exceededMessage)
        }
        return try await use(bytes)
    }

    /// The body's `Content-Length`, when the request has one.
    static func announcedBytes(_ request: Request) -> Int? {
        request.headers[.contentLength].flatMap { Int($0) }
    }

    static func bodyTooLarge(_ limit: Int) -> RESTError {
        RESTError(.contentTooLarge, "Request body too large: the limit is \(limit) bytes.")
    }
}
