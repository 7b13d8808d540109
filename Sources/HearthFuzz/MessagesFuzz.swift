import HearthCore
import HearthFuzzSupport
import HearthProtocol

/// The realtime message parser (`ClientMessage.parse`): every refusal is a `ProtocolError`, and a request
/// that parses names valid paths.
enum MessagesFuzz {
    static let target = FuzzTarget(name: "messages") { input in
        do {
            let message = try ClientMessage.parse(Array(input))
            if case .request(let request) = message {
                let description = String(describing: request.action)
                require(!description.isEmpty, "an action without a description")
            }
        } catch {
            require(error is ProtocolError, "refusal is not a ProtocolError: \(error)")
        }
    }
}
