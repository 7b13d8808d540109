import HearthCore
import Testing

@testable import HearthProtocol

struct ClientMessageTests {
    struct ParseCase: CustomTestStringConvertible, Sendable {
        var id: String
        var input: String
        var expected: ClientAction
        var testDescription: String { id }
    }

    /// The cheap test behind the merge overlap check: a path contains another exactly when
    /// their keys say so, not when their spellings merely share a beginning.
    @Test func mergePathsOverlapOnlyWhenOneContainsTheOther() {
        func entries(_ paths: [String]) -> [MergeEntry] {
            paths.map { spelled in
                let isPriority = spelled.hasSuffix("/.priority")
                let keys = spelled.split(separator: "/").map { ChildKey(String($0)) }
                return MergeEntry(
                    path: DataPath(keys: isPriority ? keys.dropLast() : keys),
                    isPriority: isPriority,
                    value: .null
                )
            }
        }
        #expect(!ClientAction.mayOverlap(entries(["b", "b0", "bc/d", "c/b", "a/.priority", "a0/x"])))
        #expect(ClientAction.mayOverlap(entries(["x", "b/c/d", "b0", "b"])))
        #expect(ClientAction.mayOverlap(entries(["c", "a/.priority", "a"])))
        #expect(ClientAction.mayOverlap(entries(["a/b", "c", "a/b"])))
    }

    static let cases: [ParseCase] = [
        ParseCase(
            id: "q default listen",
            input: frame(1, "q", #"{"p":"/users/ada","h":""}"#),
            expected: .listen(ListenRequest(path: path("/users/ada"), hash: ""))
        ),
        ParseCase(
            id: "q tagged query",
            input: frame(1, "q", #"{"p":"/msgs","q":{"l":10,"vf":"r","i":"sentAt"},"t":3,"h":"abc"}"#),
            expected: .listen(
                ListenRequest(
                    path: path("/msgs"),
                    query: Query(order: .child(path("sentAt")), limit: .last(10)),
                    tag: 3,
                    hash: "abc"
                )
            )
        ),
        ParseCase(
            id: "n unlisten",
            input: frame(2, "n", #"{"p":"/msgs","q":{"l":10,"vf":"r","i":"sentAt"},"t":3}"#),
            expected: .unlisten(
                UnlistenRequest(
                    path: path("/msgs"),
                    query: Query(order: .child(path("sentAt")), limit: .last(10)),
                    tag: 3
                )
            )
        ),
        ParseCase(
            id: "p put",
            input: frame(3, "p", #"{"p":"/a/b","d":{"x":1,"y":null}}"#),
            expected: .put(PutRequest(path: path("/a/b"), value: NewValue(node: tree(#"{"x":1}"#))))
        ),
        ParseCase(
            id: "p transaction with hash",
            input: frame(3, "p", #"{"p":"/n","d":5,"h":"Fu9QQ="}"#),
            expected: .put(PutRequest(path: path("/n"), value: NewValue(node: tree("5")), hash: "Fu9QQ="))
        ),
        ParseCase(
            id: "p priority",
            input: frame(3, "p", #"{"p":"/a/.priority","d":7}"#),
            expected: .put(PutRequest(path: path("/a"), isPriority: true, value: NewValue(node: tree("7"))))
        ),
        ParseCase(
            id: "p server value",
            input: frame(3, "p", #"{"p":"/t","d":{".sv":"timestamp"}}"#),
            expected: .put(
                PutRequest(
                    path: path("/t"),
                    value: NewValue(node: nil, serverValues: [ServerValuePlacement(path: .root, value: .timestamp)])
                )
            )
        ),
        ParseCase(
            id: "m merge with deep paths",
            input: frame(4, "m", #"{"p":"/a","d":{"b/c":1,"d":null}}"#),
            expected: .merge(
                MergeRequest(
                    path: path("/a"),
                    entries: [
                        MergeEntry(path: path("b/c"), value: NewValue(node: tree("1"))),
                        MergeEntry(path: path("d"), value: .null),
                    ]
                )
            )
        ),
        ParseCase(
            id: "o onDisconnect put",
            input: frame(5, "o", #"{"p":"/presence/ada","d":false}"#),
            expected: .onDisconnectPut(PutRequest(path: path("/presence/ada"), value: NewValue(node: tree("false"))))
        ),
        ParseCase(
            id: "om onDisconnect merge",
            input: frame(6, "om", #"{"p":"/p","d":{"online":false}}"#),
            expected: .onDisconnectMerge(
                MergeRequest(
                    path: path("/p"),
                    entries: [MergeEntry(path: path("online"), value: NewValue(node: tree("false")))]
                )
            )
        ),
        ParseCase(
            id: "oc onDisconnect cancel",
            input: frame(7, "oc", #"{"p":"/p","d":null}"#),
            expected: .onDisconnectCancel(path("/p"))
        ),
        ParseCase(
            id: "auth",
            input: frame(8, "auth", #"{"cred":"eyJ.a.b"}"#),
            expected: .authenticate(AuthRequest(credential: "eyJ.a.b", kind: .firebaseToken))
        ),
        ParseCase(
            id: "gauth with authvar",
            input: frame(8, "gauth", #"{"cred":"owner","authvar":{"uid":"u1"}}"#),
            expected: .authenticate(
                AuthRequest(
                    credential: "owner",
                    kind: .googleCredential,
                    override: .authVariable(.object([("uid", .string("u1"))]))
                )
            )
        ),
        ParseCase(
            id: "gauth with noauth",
            input: frame(8, "gauth", #"{"cred":"owner","noauth":true}"#),
            expected: .authenticate(
                AuthRequest(credential: "owner", kind: .googleCredential, override: .unauthenticated)
            )
        ),
        ParseCase(id: "unauth", input: frame(9, "unauth", "{}"), expected: .unauthenticate),
        ParseCase(
            id: "s stats",
            input: frame(10, "s", #"{"c":{"sdk.js.11-0-0":1}}"#),
            expected: .stats(.object([("sdk.js.11-0-0", .number(1))]))
        ),
        ParseCase(
            id: "g get",
            input: frame(11, "g", #"{"p":"/a","q":{}}"#),
            expected: .get(GetRequest(path: path("/a")))
        ),
        ParseCase(id: "appcheck", input: frame(12, "appcheck", #"{"token":"t"}"#), expected: .appCheck(token: "t")),
        ParseCase(id: "unappeck", input: frame(13, "unappeck", "{}"), expected: .appCheckRemoved),
    ]

    @Test(arguments: cases)
    func parsesEveryAction(_ c: ParseCase) throws {
        let parsed = try #require(try request(c.input))
        #expect(parsed.action == c.expected)
    }

    @Test func parsesRequestNumberAndWhitespace() throws {
        let parsed = try #require(
            try request(" { \"t\" : \"d\" , \"d\" : { \"a\" : \"g\" , \"r\" : 42 , \"b\" : { \"p\" : \"/\" } } } ")
        )
        #expect(parsed.id == RequestID(42))
        #expect(parsed.action == .get(GetRequest(path: .root)))
    }

    @Test func parsesControlMessages() throws {
        #expect(try ClientMessage.parse(#"{"t":"c","d":{"t":"p","d":{}}}"#) == .control(.ping))
        #expect(try ClientMessage.parse(#"{"t":"c","d":{"t":"n","d":{}}}"#) == .control(.endTransmission))
        #expect(try ClientMessage.parse(#"{"t":"c","d":{"t":"zz","d":{}}}"#) == .control(.other("zz")))
    }

    struct InvalidCase: CustomTestStringConvertible, Sendable {
        var id: String
        var input: String
        var message: String
        var testDescription: String { id }
    }

    static let invalidCases: [InvalidCase] = [
        InvalidCase(
            id: "unknown action",
            input: frame(1, "zz", "{}"),
            message: "Unknown action 'zz'; accepted are q, n, p, m, o, om, oc, auth, gauth, unauth, s and g."
        ),
        InvalidCase(
            id: "invalid key in path",
            input: frame(1, "p", #"{"p":"/a.b","d":1}"#),
            message:
                "Invalid key 'a.b' in path '/a.b': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        InvalidCase(
            id: "invalid key in data",
            input: frame(1, "p", #"{"p":"/a","d":{"x$":1}}"#),
            message:
                "Invalid key 'x$' in path '/a/x$': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        InvalidCase(
            id: "missing path",
            input: frame(1, "p", #"{"d":1}"#),
            message: "Invalid request: the path 'p' is missing or not a string."
        ),
        InvalidCase(
            id: "missing data",
            input: frame(1, "p", #"{"p":"/a"}"#),
            message: "Invalid request: the data 'd' is missing."
        ),
        InvalidCase(
            id: "merge of a non-object",
            input: frame(1, "m", #"{"p":"/a","d":5}"#),
            message: "Invalid update at '/a': the data must be an object of child paths and values."
        ),
        InvalidCase(
            id: "overlapping merge paths",
            input: frame(1, "m", #"{"p":"/a","d":{"b":1,"b/c":2}}"#),
            message: "Invalid update at '/a': the path '/b/c' is inside '/b', which is also being set."
        ),
        InvalidCase(
            id: "overlapping merge paths far apart",
            input: frame(1, "m", #"{"p":"/a","d":{"b/c/d":1,"x":2,"b0":3,"b":{"e":4},"y":5}}"#),
            message: "Invalid update at '/a': the path '/b/c/d' is inside '/b', which is also being set."
        ),
        InvalidCase(
            id: "a merge setting a node and its priority",
            input: frame(1, "m", #"{"p":"/a","d":{"b/.priority":1,"c":2,"b":3}}"#),
            message: "Invalid update at '/a': the path '/b/.priority' is inside '/b', which is also being set."
        ),
        InvalidCase(
            id: "bad query limit",
            input: frame(1, "q", #"{"p":"/a","q":{"l":-1,"vf":"l"},"t":1,"h":""}"#),
            message: "Invalid query limit 'l': '-1'; expected a whole number from 0 to 2147483647."
        ),
        InvalidCase(
            id: "bad query index",
            input: frame(1, "q", #"{"p":"/a","q":{"i":""},"t":1,"h":""}"#),
            message: "Invalid query index 'i': ''; expected \".key\", \".value\", \".priority\" or a child path."
        ),
        InvalidCase(
            id: "object as query bound",
            input: frame(1, "q", #"{"p":"/a","q":{"sp":{"a":1}},"t":1,"h":""}"#),
            message: "Invalid query bound 'sp': an object; expected null, a boolean, a number or a string."
        ),
        InvalidCase(
            id: "non-string credential",
            input: frame(1, "auth", #"{"cred":5}"#),
            message: "Invalid request member 'cred': '5'; expected a string."
        ),
        InvalidCase(
            id: "too deep",
            input: frame(
                1,
                "p",
                "{\"p\":\"/" + Array(repeating: "k", count: 33).joined(separator: "/") + "\",\"d\":1}"
            ),
            message: "Invalid path '/" + Array(repeating: "k", count: 33).joined(separator: "/")
                + "': data can be nested at most 32 levels deep."
        ),
        InvalidCase(
            id: "bad priority",
            input: frame(1, "p", #"{"p":"/a","d":{".priority":true,"b":1}}"#),
            message: "Invalid priority 'true' at '/a/.priority': '.priority' must be a number, a string or null."
        ),
        InvalidCase(
            id: "body not an object",
            input: frame(1, "g", "[1]"),
            message: "Invalid request 1: the body 'b' must be an object."
        ),
    ]

    @Test(arguments: invalidCases)
    func invalidRequestsBecomeErrorResponses(_ c: InvalidCase) throws {
        let parsed = try ClientMessage.parse(c.input)
        guard case .invalidRequest(let id, let error) = parsed else {
            Issue.record("expected an invalid request, got \(parsed)")
            return
        }
        #expect(id == RequestID(1))
        #expect(error.code == .invalidRequest)
        #expect(error.message == c.message)
    }

    static let malformed: [String] = [
        "",
        "not json",
        "{\"t\":\"d\",\"d\":{\"r\":1,\"a\":\"p\",\"b\":{\"p\":\"/a\",\"d\":{\"x\":}}}}",
        "{\"t\":\"d\",\"d\":{\"r\":1,\"a\":\"p\",\"b\":{\"p\":\"/a\",\"d\":1}}",
        "{\"t\":\"d\",\"d\":{\"r\":1,\"a\":\"p\",\"b\":{\"p\":\"/a\",\"d\":1}}},",
        "{\"t\":\"d\",\"d\":{\"a\":\"p\",\"b\":{}}}",
        "{\"t\":\"d\",\"d\":{\"r\":1.5,\"a\":\"p\",\"b\":{}}}",
        "{\"t\":\"x\",\"d\":{}}",
        "{\"d\":{}}",
        "{\"t\":\"d\"}",
        "[1,2]",
        "{\"t\":\"d\",\"d\":{\"r\":1,\"a\":\"s\",\"b\":{\"c\":{}},\"x\":tru}}",
        "{\"t\":\"d\",\"d\":{\"r\":1,\"a\":\"s\",\"b\":{\"c\":{},}}}",
        "{\"t\":\"d\",\"d\":{\"r\":1,\"a\":\"oc\",\"b\":{\"p\":\"/a\",\"d\":nul}}}",
    ]

    @Test(arguments: malformed)
    func malformedMessagesThrow(_ input: String) {
        #expect {
            try ClientMessage.parse(input)
        } throws: { error in
            (error as? ProtocolError)?.code == .malformedMessage
        }
    }

    /// Member values read on the fast path (plain strings, short integers) must equal what the
    /// full parser reads, and anything it would refuse must still be refused.
    @Test(arguments: [
        "0", "-0", "7", "-12", "007", "-", "123456789012345", "-123456789012345", "1234567890123456",
        "12345678901234567890", "1.5", "1e3", "-0.0", #""plain""#, #""""#, #""a\"b""#, #""\u00e9""#, "\"é\"",
        "\"tab\there\"", "\"del\u{7F}\"", "true", "null", "[1]", "{\"a\":1}", "tru",
    ])
    func memberValuesReadLikeTheFullParser(_ raw: String) throws {
        let object = try RawJSONObject(Array("{\"v\":\(raw)}".utf8))
        let full = Result { try JSONParser.parse(Array(raw.utf8)) }
        let read = Result { try object.value(of: "v") }
        switch (full, read) {
        case (.success(let expected), .success(let value?)):
            #expect(value == expected)
            if case .number(let a) = expected, case .number(let b) = value { #expect(a.sign == b.sign) }
        case (.failure, .failure):
            break
        default:
            Issue.record("\(raw): the full parser gives \(full), the member reader \(read)")
        }
    }

    @Test func escapedEnvelopeKeysAreDecoded() throws {
        let parsed = try #require(try request(#"{"\u0074":"d","d":{"r":1,"a":"g","b":{"p":"/x"}}}"#))
        #expect(parsed.action == .get(GetRequest(path: path("/x"))))
    }

    @Test func authRequestDescriptionHidesTheCredential() {
        let request = AuthRequest(credential: "secret-token", kind: .firebaseToken)
        #expect(!String(describing: request).contains("secret"))
    }
}
