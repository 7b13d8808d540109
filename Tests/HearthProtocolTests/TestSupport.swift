import HearthCore

@testable import HearthProtocol

/// The texts of the frames a list of actions sends.
func sent(_ actions: [SessionAction]) -> [String] {
    actions.compactMap { action in
        if case .send(let frame) = action { return String(decoding: frame, as: UTF8.self) }
        return nil
    }
}

/// The actions other than `.send`.
func work(_ actions: [SessionAction]) -> [SessionAction] {
    actions.filter { if case .send = $0 { return false } else { return true } }
}

/// A tree parsed from JSON at the root.
func tree(_ json: String) -> Node? {
    try! TreeParser.parse(json, at: .root).node
}

/// A path from its text form.
func path(_ text: String) -> DataPath {
    try! DataPath.parse(text)
}

/// The request a message text parses to, or nil.
func request(_ text: String) throws -> ClientRequest? {
    if case .request(let request) = try ClientMessage.parse(text) { return request }
    return nil
}

/// An instant, in milliseconds.
func at(_ milliseconds: Int64) -> Timestamp { Timestamp(millisecondsSince1970: milliseconds) }

/// A session that has sent its hello.
func openSession(_ configuration: RealtimeSessionConfiguration = RealtimeSessionConfiguration()) -> RealtimeSession {
    var session = RealtimeSession(sessionID: "S1", configuration: configuration)
    _ = session.connected(host: "localhost:9000", now: at(1_000))
    return session
}

/// A request frame `{"t":"d","d":{"r":id,"a":action,"b":body}}`.
func frame(_ id: Int, _ action: String, _ body: String) -> String {
    "{\"t\":\"d\",\"d\":{\"r\":\(id),\"a\":\"\(action)\",\"b\":\(body)}}"
}

/// The response frame for request `id`.
func response(_ id: Int, _ status: String, _ data: String) -> String {
    "{\"t\":\"d\",\"d\":{\"r\":\(id),\"b\":{\"s\":\"\(status)\",\"d\":\(data)}}}"
}
