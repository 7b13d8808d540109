import HearthCore
import Testing

@testable import HearthProtocol

@Suite struct EncodedUpdateTests {
    static let cases: [(id: String, path: String, change: DataUpdate.Change)] = [
        ("set at root", "/", .set(tree(#"{"a":1}"#))),
        ("set null", "/a/b", .set(nil)),
        ("set with priority", "/a", .set(tree(#"{".value":"x",".priority":2}"#))),
        (
            "merge", "/m",
            .merge([UpdatedChild(path: path("/k/deep"), node: tree("1")), UpdatedChild(path: path("/g"), node: nil)])
        ),
        ("array-like stays an object", "/l", .set(tree(#"{"0":"a","1":"b"}"#))),
    ]

    @Test(arguments: cases)
    func bytesMatchServerMessage(_ item: (id: String, path: String, change: DataUpdate.Change)) {
        let update = EncodedUpdate(path: path(item.path), change: item.change)
        for tag: Int64? in [nil, 7, -3] {
            let expected = ServerMessage.dataUpdate(DataUpdate(path: path(item.path), change: item.change, tag: tag))
                .encoded()
            #expect(update.message(tag: tag) == expected, "\(item.id) tag \(String(describing: tag))")
        }
    }

    @Test func piecesAndEventStreamPayload() {
        let update = EncodedUpdate(path: path("/users/ada"), change: .set(tree(#"{"n":"Ada"}"#)))
        #expect(String(decoding: update.pathJSON, as: UTF8.self) == #""users/ada""#)
        #expect(String(decoding: update.dataJSON, as: UTF8.self) == #"{"n":"Ada"}"#)
        #expect(update.eventName == "put")
        #expect(
            String(decoding: update.eventStreamData(relativeTo: path("/users")), as: UTF8.self)
                == #"{"path":"/ada","data":{"n":"Ada"}}"#
        )
        #expect(
            String(decoding: update.eventStreamData(relativeTo: path("/users/ada")), as: UTF8.self)
                == #"{"path":"/","data":{"n":"Ada"}}"#
        )
        let withPriority = EncodedUpdate(path: path("/l"), change: .set(tree(#"{"0":{".value":"a",".priority":1}}"#)))
        #expect(
            String(decoding: withPriority.eventStreamData(relativeTo: .root, format: .plain), as: UTF8.self)
                == #"{"path":"/l","data":["a"]}"#
        )
        let merge = EncodedUpdate(path: .root, change: .merge([UpdatedChild(path: path("/a/b"), node: tree("1"))]))
        #expect(merge.eventName == "patch")
        #expect(
            String(decoding: merge.eventStreamData(relativeTo: .root), as: UTF8.self)
                == #"{"path":"/","data":{"a/b":1}}"#
        )
    }

    @Test func sessionSendsSharedBytesAddsTagsAndDropsUnknownListens() {
        var session = openSession()
        _ = session.received(frame: frame(1, "q", #"{"p":"/a","h":""}"#), now: at(2))
        _ = session.completed(.listening(data: nil), for: RequestID(1))
        _ = session.received(frame: frame(2, "q", #"{"p":"/m","q":{"l":2,"vf":"r"},"t":5,"h":""}"#), now: at(3))
        _ = session.completed(.listening(data: nil), for: RequestID(2))
        let update = EncodedUpdate(path: path("/a/x"), change: .set(tree("1")))
        let untagged = session.push(encoded: update, for: ListenKey(path: path("/a"), query: Query()))
        #expect(untagged == [.send(update.message)])
        let tagged = EncodedUpdate(path: path("/m"), change: .merge([UpdatedChild(path: path("/k"), node: nil)]))
        #expect(
            sent(session.push(encoded: tagged, for: ListenKey(path: path("/m"), query: Query(limit: .last(2)))))
                == [#"{"t":"d","d":{"a":"m","b":{"p":"m","d":{"k":null},"t":5}}}"#]
        )
        #expect(session.push(encoded: update, for: ListenKey(path: path("/z"), query: Query())).isEmpty)
        _ = session.received(frame: frame(3, "n", #"{"p":"/a"}"#), now: at(4))
        #expect(session.push(encoded: update, for: ListenKey(path: path("/a"), query: Query())).isEmpty)
    }

    @Test func largePushesAreSplitIntoFrames() {
        var session = openSession(RealtimeSessionConfiguration(maxFrameLength: 100))
        _ = session.received(frame: frame(1, "q", #"{"p":"/a","h":""}"#), now: at(2))
        _ = session.completed(.listening(data: nil), for: RequestID(1))
        let update = EncodedUpdate(
            path: path("/a"),
            change: .set(.leaf(.string(String(repeating: "x", count: 250)), priority: nil))
        )
        let frames = sent(session.push(encoded: update, for: ListenKey(path: path("/a"), query: Query())))
        #expect(frames.count == 4)
        #expect(frames.first == "3")
        #expect(frames.dropFirst().joined() == String(decoding: update.message, as: UTF8.self))
    }
}
