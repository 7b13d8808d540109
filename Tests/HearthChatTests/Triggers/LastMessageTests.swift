import HearthCore
import Testing

@testable import HearthChat

/// A chat's `lastMessage`, put together in key order, is the node its fields make in any order.
@Suite struct LastMessageTests {
    private func node(_ json: String) throws -> Node {
        try #require(try TreeParser.parse(json, at: .root).node)
    }

    @Test func theSummaryIsItsFieldsSorted() throws {
        let messages = [
            #"{"sender":"u1","kind":"text","text":"hi","sentAt":1700000000000}"#,
            #"{"sender":"u1","kind":"image","sentAt":1700000000000}"#,
            #"{"sender":"u1","kind":"call","sentAt":5,"call":{"callId":"k","state":"missed","durationMs":0}}"#,
            #"{"kind":"call","text":"no call node"}"#,
            #"{"text":7,"sender":true}"#,
        ]
        let id = ChildKey("m1")
        for json in messages {
            let message = try node(json)
            var fields: [(ChildKey, Node)] = [(ChildKey("id"), .leaf(.string("m1"), priority: nil))]
            for name in ["text", "sender"] {
                if case .leaf(.string(let s), _)? = message.child(ChildKey(name)) {
                    fields.append((ChildKey(name), .leaf(.string(s), priority: nil)))
                }
            }
            if case .leaf(.number(let n), _)? = message.child(ChildKey("sentAt")) {
                fields.append((ChildKey("sentAt"), .leaf(.number(n), priority: nil)))
            }
            if case .leaf(.string("call"), _)? = message.child(ChildKey("kind")),
                let call = message.child(ChildKey("call"))
            {
                fields.append((ChildKey("kind"), .leaf(.string("call"), priority: nil)))
                fields.append((ChildKey("call"), call))
            }
            let expected = Node.children(Children(unsorted: fields), priority: nil)
            #expect(LastMessage.summary(id: id, message: message) == expected, "\(json)")
        }
    }
}
