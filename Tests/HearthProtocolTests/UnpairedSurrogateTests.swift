import HearthCore
import Testing

@testable import HearthProtocol

/// A lone surrogate escape is bad data in one request (answered `failure`, naming the string),
/// not a broken message; text that is not UTF-8 at all is (close 1007).
struct UnpairedSurrogateTests {
    struct FindCase: Sendable, CustomTestStringConvertible {
        let id: String
        let json: String
        let expected: UnpairedSurrogate?
        var testDescription: String { id }
    }

    static let findCases: [FindCase] = [
        FindCase(
            id: "high alone",
            json: #""a\ud800b""#,
            expected: .init(escape: #"\ud800"#, text: #"a\ud800b"#, isKey: false)
        ),
        FindCase(
            id: "low alone",
            json: #"["x","\uDC01"]"#,
            expected: .init(escape: #"\uDC01"#, text: #"\uDC01"#, isKey: false)
        ),
        FindCase(
            id: "high then high",
            json: #"{"v":"\ud800\ud801"}"#,
            expected: .init(escape: #"\ud800"#, text: #"\ud800\ud801"#, isKey: false)
        ),
        FindCase(
            id: "low before high",
            json: #""\udc00\ud800""#,
            expected: .init(escape: #"\udc00"#, text: #"\udc00\ud800"#, isKey: false)
        ),
        FindCase(
            id: "key, space before the colon",
            json: #"{"ok":1, "k\ud800" : 2}"#,
            expected: .init(escape: #"\ud800"#, text: #"k\ud800"#, isKey: true)
        ),
        FindCase(
            id: "after escaped quotes",
            json: #"{"a\"":"\"\ud800"}"#,
            expected: .init(escape: #"\ud800"#, text: #"\"\ud800"#, isKey: false)
        ),
        FindCase(id: "a pair", json: #""\ud83d\ude00""#, expected: nil),
        FindCase(id: "an escaped backslash, then text", json: #""\\ud800""#, expected: nil),
        FindCase(id: "no strings", json: "[1,2,{}]", expected: nil),
    ]

    @Test(arguments: findCases)
    func findsTheStringHoldingIt(_ c: FindCase) {
        #expect(UnpairedSurrogate.find(in: Array(c.json.utf8)[...]) == c.expected)
    }

    /// A high surrogate right before the closing quote that ends the input is lone too (the
    /// scanner used to wait for more input there and report an unexpected end).
    @Test(arguments: [#""\ud800""#, #""a\udbff""#, #"{"k\ud800":1}"#, #"["\ud800"]"#, #""\udc00""#])
    func coreParsersReportAnUnpairedSurrogate(_ json: String) {
        for parse in [{ _ = try TreeParser.parse(json, at: .root) }, { _ = try JSONParser.parse(json) }]
            as [() throws -> Void]
        {
            #expect {
                try parse()
            } throws: { error in
                (error as? CoreError)?.code == .unpairedSurrogate
            }
        }
    }

    @Test func aLongStringIsShortenedInTheMessage() throws {
        let long = String(repeating: "x", count: 300) + #"\ud800"#
        let found = try #require(UnpairedSurrogate.find(in: Array("\"\(long)\"".utf8)[...]))
        #expect(found.text == String(repeating: "x", count: 100) + "...")
    }

    @Test func theSessionAnswersFailureAndGoesOn() {
        var session = openSession()
        let actions = session.received(frame: frame(1, "p", #"{"p":"/a","d":"\ud800"}"#), now: at(2))
        #expect(
            actions == [
                .send(
                    Array(
                        (#"{"t":"d","d":{"r":1,"b":{"s":"failure","d":"Invalid data at '/a': the string '\\ud800' holds '\\ud800', "#
                            + #"an unpaired UTF-16 surrogate; paths, keys and strings must be valid Unicode (a surrogate only as half of a pair)."}}}"#)
                            .utf8
                    )
                )
            ]
        )
        #expect(session.phase == .open)
        let next = session.received(frame: frame(2, "p", #"{"p":"/a","d":"\ud83d\ude00"}"#), now: at(3))
        guard case .write(_, let requestID, _)? = next.first else {
            Issue.record("expected the next put to go on, got \(next)")
            return
        }
        #expect(requestID == RequestID(2))
    }

    @Test func aMessageThatIsNotUTF8ClosesWith1007() throws {
        var session = openSession()
        var bytes = Array(frame(1, "p", #"{"p":"/a","d":"xy"}"#).utf8)
        let x = try #require(bytes.firstIndex(of: UInt8(ascii: "x")))
        bytes[x] = 0xFF
        let actions = session.received(frame: bytes, now: at(2))
        guard case .close(let code, let reason)? = actions.first else {
            Issue.record("expected a close, got \(actions)")
            return
        }
        #expect(code == .invalidPayload)
        #expect(reason == "Invalid UTF-8 in a text message.")
    }
}
