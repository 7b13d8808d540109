import HearthCore
import Testing

@testable import HearthProtocol

struct ServerMessageTests {
    struct EncodeCase: CustomTestStringConvertible, Sendable {
        var id: String
        var message: ServerMessage
        var expected: String
        var testDescription: String { id }
    }

    static let cases: [EncodeCase] = [
        EncodeCase(
            id: "hello",
            message: .hello(timestamp: at(1_700_000_000_123), host: "db.example:9000", sessionID: "abc"),
            expected: #"{"t":"c","d":{"t":"h","d":{"ts":1700000000123,"v":"5","h":"db.example:9000","s":"abc"}}}"#
        ),
        EncodeCase(id: "pong", message: .pong, expected: #"{"t":"c","d":{"t":"o","d":{}}}"#),
        EncodeCase(
            id: "shutdown",
            message: .shutdown(reason: "Database deleted."),
            expected: #"{"t":"c","d":{"t":"s","d":"Database deleted."}}"#
        ),
        EncodeCase(
            id: "reset",
            message: .reset(host: "node2:9000"),
            expected: #"{"t":"c","d":{"t":"r","d":"node2:9000"}}"#
        ),
        EncodeCase(
            id: "ok write",
            message: .response(RequestID(3), status: .ok, data: .empty),
            expected: response(3, "ok", #""""#)
        ),
        EncodeCase(
            id: "ok listen",
            message: .response(RequestID(4), status: .ok, data: .emptyObject),
            expected: response(4, "ok", "{}")
        ),
        EncodeCase(
            id: "permission denied",
            message: .response(RequestID(5), status: .permissionDenied, data: .message("Permission denied")),
            expected: response(5, "permission_denied", #""Permission denied""#)
        ),
        EncodeCase(
            id: "datastale",
            message: .response(RequestID(6), status: .dataStale, data: .message("Transaction hash does not match")),
            expected: response(6, "datastale", #""Transaction hash does not match""#)
        ),
        EncodeCase(
            id: "get with priorities",
            message: .response(RequestID(7), status: .ok, data: .tree(tree(#"{"a":{".value":1,".priority":2}}"#))),
            expected: response(7, "ok", #"{"a":{".value":1,".priority":2}}"#)
        ),
        EncodeCase(
            id: "set push",
            message: .dataUpdate(DataUpdate(path: path("/users/ada"), change: .set(tree(#"{"n":"Ada"}"#)))),
            expected: #"{"t":"d","d":{"a":"d","b":{"p":"users/ada","d":{"n":"Ada"}}}}"#
        ),
        EncodeCase(
            id: "tagged set push of null at the root",
            message: .dataUpdate(DataUpdate(path: .root, change: .set(nil), tag: 7)),
            expected: #"{"t":"d","d":{"a":"d","b":{"p":"","d":null,"t":7}}}"#
        ),
        EncodeCase(
            id: "export keeps arrays as objects",
            message: .dataUpdate(DataUpdate(path: path("/l"), change: .set(tree("[1,2]")))),
            expected: #"{"t":"d","d":{"a":"d","b":{"p":"l","d":{"0":1,"1":2}}}}"#
        ),
        EncodeCase(
            id: "merge push",
            message: .dataUpdate(
                DataUpdate(
                    path: path("/a"),
                    change: .merge([
                        UpdatedChild(path: path("b/c"), node: tree("1")), UpdatedChild(path: path("d"), node: nil),
                    ]),
                    tag: 2
                )
            ),
            expected: #"{"t":"d","d":{"a":"m","b":{"p":"a","d":{"b/c":1,"d":null},"t":2}}}"#
        ),
        EncodeCase(
            id: "default listen revoked",
            message: .listenRevoked(path: path("/secret"), query: Query()),
            expected: #"{"t":"d","d":{"a":"c","b":{"p":"secret"}}}"#
        ),
        EncodeCase(
            id: "query listen revoked",
            message: .listenRevoked(path: path("/m"), query: Query(limit: .last(3))),
            expected: #"{"t":"d","d":{"a":"c","b":{"p":"m","q":[{"l":3,"vf":"r"}]}}}"#
        ),
        EncodeCase(
            id: "auth revoked",
            message: .authRevoked(status: .expiredToken, reason: "Auth token is expired."),
            expected: #"{"t":"d","d":{"a":"ac","b":{"s":"expired_token","d":"Auth token is expired."}}}"#
        ),
        EncodeCase(
            id: "escaped strings",
            message: .response(RequestID(1), status: .failure, data: .message("bad \"x\"\n")),
            expected: response(1, "failure", #""bad \"x\"\n""#)
        ),
    ]

    @Test(arguments: cases)
    func encodesMessages(_ c: EncodeCase) throws {
        let text = String(decoding: c.message.encoded(), as: UTF8.self)
        #expect(text == c.expected)
        // Every encoding is valid JSON.
        _ = try JSONParser.parse(text)
    }

    @Test func bigPushIsSplitIntoFrames() {
        let big = String(repeating: "x", count: 40_000)
        let message = ServerMessage.dataUpdate(
            DataUpdate(path: path("/a"), change: .set(.leaf(.string(big), priority: nil)))
        )
        let frames = message.frames()
        #expect(String(decoding: frames[0], as: UTF8.self) == "3")
        #expect(Array(frames[1...].joined()) == message.encoded())
    }
}
