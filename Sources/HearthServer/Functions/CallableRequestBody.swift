import Foundation
import HTTPTypes
import HearthCore
import HearthFunctions
import Hummingbird

/// Reads and checks a callable's request body as Firebase's callable protocol defines it: JSON
/// (`Content-Type: application/json`, any charset parameter), an object with exactly one
/// member, `data`. Long integers sent as `{"@type": "type.googleapis.com/google.protobuf.Int64Value",
/// "value": "..."}` (the mobile SDKs' encoding; also `UInt64Value`) become numbers. Every
/// refusal is `INVALID_ARGUMENT` naming the problem.
enum CallableRequestBody {
    static let longTypes: Set<String> = [
        "type.googleapis.com/google.protobuf.Int64Value", "type.googleapis.com/google.protobuf.UInt64Value",
    ]

    /// Reads the body, at most `limit` bytes: one over it is refused as soon as its
    /// `Content-Length` or the bytes read pass the limit (the rest is not read; the answer
    /// closes the connection). Each part counts against `memory` until the call is done.
    static func read(
        _ request: Request,
        limit: Int,
        memory: BodyMemoryBudget,
        _ use: (JSONValue) async throws(CallableError) -> JSONValue
    ) async throws(CallableError) -> JSONValue {
        try checkContentType(request.headers[.contentType])
        if let announced = request.headers[.contentLength].flatMap({ Int($0) }), announced > limit {
            throw tooLarge(limit)
        }
        var bytes: [UInt8] = []
        var reserved = 0
        defer { memory.release(reserved) }
        do {
            for try await part in request.body {
                let count = part.readableBytes
                guard bytes.count + count <= limit else { throw tooLarge(limit) }
                guard memory.reserve(count) else {
                    throw CallableError(.unavailable, "Too many request bodies in flight; retry shortly.")
                }
                reserved += count
                bytes.append(contentsOf: part.readableBytesView)
            }
        } catch let error as CallableError {
            throw error
        } catch {
            throw .invalidArgument("The request body could not be read: \(error).")
        }
        return try await use(try data(of: bytes))
    }

    static func checkContentType(_ value: String?) throws(CallableError) {
        let mediaType = (value ?? "").split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard mediaType == "application/json" else {
            throw .invalidArgument(
                "The request's Content-Type is '\(value ?? "")': callable functions take 'application/json'."
            )
        }
    }

    /// The `data` of a body, long integers decoded.
    static func data(of bytes: [UInt8]) throws(CallableError) -> JSONValue {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw .invalidArgument("The request body is not valid JSON: \(error).")
        }
        guard case .object(let members) = document else {
            throw .invalidArgument(#"The request body must be a JSON object: {"data": ...}."#)
        }
        if let extra = members.first(where: { $0.0 != "data" }) {
            throw .invalidArgument(#"The request body has an unexpected field '\#(extra.0)': send only {"data": ...}."#)
        }
        guard let data = document["data"] else {
            throw .invalidArgument(#"The request body has no 'data' field: send {"data": ...} (null when none)."#)
        }
        return try decodeLongs(data, at: "data")
    }

    /// `value` with every `Int64Value`/`UInt64Value` object replaced by its number.
    static func decodeLongs(_ value: JSONValue, at path: String) throws(CallableError) -> JSONValue {
        switch value {
        case .array(let elements):
            var decoded: [JSONValue] = []
            decoded.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                decoded.append(try decodeLongs(element, at: "\(path)[\(index)]"))
            }
            return .array(decoded)
        case .object(let members):
            if let type = value["@type"] {
                guard let name = type.stringValue, longTypes.contains(name) else {
                    throw .invalidArgument(
                        "Unsupported '@type' in '\(path)': only the Int64Value and UInt64Value encodings are decoded."
                    )
                }
                guard let text = value["value"]?.stringValue, let number = Double(text), number.isFinite else {
                    throw .invalidArgument("Invalid long integer in '\(path)': 'value' must be a string of digits.")
                }
                return .number(number)
            }
            var decoded: [(String, JSONValue)] = []
            decoded.reserveCapacity(members.count)
            for (key, member) in members {
                decoded.append((key, try decodeLongs(member, at: "\(path).\(key)")))
            }
            return .object(decoded)
        default:
            return value
        }
    }

    static func tooLarge(_ limit: Int) -> CallableError {
        .invalidArgument("The request body is larger than \(limit) bytes, the limit for a callable function's data.")
    }
}
