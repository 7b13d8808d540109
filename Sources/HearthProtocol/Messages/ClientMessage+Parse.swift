import HearthCore

extension ClientMessage {
    /// Parses one complete message (all its frames joined).
    /// - Returns: a control message, a request, or `.invalidRequest` for a numbered request the
    ///   server must refuse with an error response.
    /// - Throws: `ProtocolError` (`.malformedMessage`) when the bytes are not JSON or not an
    ///   envelope the server can answer; the connection should be closed.
    public static func parse(_ bytes: [UInt8]) throws -> ClientMessage {
        do {
            let envelope = try RawJSONObject(bytes)
            try envelope.validateOthers(except: envelopeMembers)
            guard let dataRange = envelope.range(of: "d") else {
                throw ProtocolError.malformed("Invalid message: the member 'd' is missing.")
            }
            switch try envelope.value(of: "t") {
            case .string("c")?:
                return .control(try control(try JSONParser.parse(bytes[dataRange])))
            case .string("d")?:
                return try request(RawJSONObject(bytes, range: dataRange))
            case let other?:
                throw ProtocolError.malformed(
                    "Invalid message type 't': \(QueryObject.describe(other)); expected \"c\" (control) or \"d\" (data)."
                )
            case nil:
                throw ProtocolError.malformed("Invalid message: the member 't' is missing.")
            }
        } catch let error as CoreError {
            throw ProtocolError.malformed(error.message)
        }
    }

    /// Parses a message held in a string.
    public static func parse(_ text: String) throws -> ClientMessage {
        try parse(Array(text.utf8))
    }

    static func control(_ data: JSONValue) throws -> ClientControl {
        guard case .string(let command) = data["t"] else {
            throw ProtocolError.malformed("Invalid control message: expected {\"t\": command, \"d\": payload}.")
        }
        switch command {
        case "p": return .ping
        case "a": return .switchAcknowledged
        case "n": return .endTransmission
        default: return .other(command)
        }
    }

    private static let envelopeMembers = ["t", "d"]
    private static let requestMembers = ["r", "a", "b"]

    static func request(_ message: RawJSONObject) throws -> ClientMessage {
        try message.validateOthers(except: requestMembers)
        guard let idValue = try message.value(of: "r") else {
            throw ProtocolError.malformed("Invalid request: the request number 'r' is missing.")
        }
        guard case .number(let number) = idValue, number.rounded() == number, abs(number) < 9.0e15 else {
            throw ProtocolError.malformed(
                "Invalid request number 'r': \(QueryObject.describe(idValue)); expected a whole number."
            )
        }
        let id = RequestID(Int64(number))
        do {
            guard case .string(let name)? = try message.value(of: "a") else {
                throw ProtocolError.invalid("Invalid request \(id): the action 'a' is missing or not a string.")
            }
            let body: RawJSONObject
            if let range = message.range(of: "b") {
                // `null` is an empty body; any other body must be an object (whose members are
                // each parsed strictly below), so the body is never parsed twice.
                if message.bytes[range].elementsEqual("null".utf8) {
                    body = try RawJSONObject(Array("{}".utf8))
                } else {
                    guard message.bytes[range].first == UInt8(ascii: "{") else {
                        throw ProtocolError.invalid("Invalid request \(id): the body 'b' must be an object.")
                    }
                    body = try RawJSONObject(message.bytes, range: range)
                }
            } else {
                body = try RawJSONObject(Array("{}".utf8))
            }
            let action = try ClientAction.parse(name, body: body)
            return .request(ClientRequest(id: id, action: action))
        } catch let error as ProtocolError where error.code == .invalidRequest {
            return .invalidRequest(id, error)
        } catch let error as CoreError where error.code != .invalidJSON {
            return .invalidRequest(id, ProtocolError.invalid(error.message))
        }
    }
}
