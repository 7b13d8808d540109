import HearthCore
import HearthStore
import Testing

@testable import HearthServer

/// A PATCH body is read straight into the tree when it is ordinary, and through a JSON value
/// otherwise; both readings must agree on every body the direct one accepts, and every body
/// the general one refuses must be refused with its message.
struct PatchBodyParsingTests {
    static let base = DataPath(keys: [ChildKey("chat")])

    static let accepted: [String] = [
        #"{"a": 1}"#,
        #" { "a/b" : {"c": [1, 2, {"d": null}], "e": "x\u00e9\n"}, "f": true } "#,
        #"{"messages/g1/m1": {"kind":"text","sentAt":{".sv":"timestamp"}}, "u/1/unread": {".sv": {"increment": 1}}}"#,
        #"{"a": {".value": 3, ".priority": 2}, "b": {".priority": "p", "x": 1}}"#,
        #"{"/a/b/": 1, "a/b": 2, "c": 3, "c": 4}"#,
        #"{"a": -0, "b": -0.5, "c": 1e3, "d": -12.25e-3}"#,
        #"{"a": [], "b": {}, "c": "", "d": [null, 1]}"#,
        #"{"\u0061": "key spelled with an escape", "é/日本": "ünï"}"#,
        #"{"a": "\ud83d\ude00", "b": "tab\tescaped"}"#,
    ]

    static let refused: [String] = [
        "", "[]", "1", #"{"a": 1"#, #"{"a": 1,}"#, #"{"a" 1}"#, #"{"a": tru}"#, #"{"a": 01}"#,
        #"{"a": {"b": 1]}"#, #"{"a": 1} x"#, #"{"": 1}"#, #"{"/": 1}"#, #"{"a.b": 1}"#, #"{"a": "\ud800"}"#,
        "{\"a\u{1}\": 1}", #"{"a": {"b": {".sv": "nope"}}}"#, #"{"a": 1e999}"#,
        "{\"a\": \"\u{0}\"}", #"{"a": {".priority": {}}}"#,
    ]

    @Test(arguments: accepted)
    func theDirectReadingAgreesWithTheGeneralOne(body: String) throws {
        let bytes = Array(body.utf8)
        let general = try CoreBridge.parseUpdateAsJSON(bytes, at: Self.base)
        #expect(try CoreBridge.parseUpdate(bytes, at: Self.base) == general)
    }

    @Test(arguments: refused)
    func aRefusedBodyGetsTheGeneralReadingsError(body: String) throws {
        let bytes = Array(body.utf8)
        let general = #expect(throws: (any Error).self) { try CoreBridge.parseUpdateAsJSON(bytes, at: Self.base) }
        let answered = #expect(throws: (any Error).self) { try CoreBridge.parseUpdate(bytes, at: Self.base) }
        #expect(answered.map { String(describing: $0) } == general.map { String(describing: $0) })
    }

    @Test func aNegativeZeroIsWrittenAsZeroAsBefore() throws {
        let entries = try CoreBridge.parseUpdate(Array(#"{"a": -0}"#.utf8), at: Self.base)
        guard case .leaf(.number(let n), _)? = entries.first?.value.node else {
            Issue.record("expected a number")
            return
        }
        #expect(n == 0 && n.sign == .plus)
    }
}

/// A PATCH answer echoes each path quoted as `JSONText.quoted` quotes its spelling; plain keys
/// are copied straight from their bytes.
struct PatchAnswerPathTests {
    @Test(arguments: [
        ["a"], ["messages", "g1", "c0s12"], ["é", "日本", "😀"], ["with \"quote\""], ["back\\slash", "x"],
        ["tab\there"], ["ok", "del\u{7F}"], [],
    ])
    func aPathIsQuotedAsItsSpellingIs(keys: [String]) {
        var bytes: [UInt8] = Array("{".utf8)
        RESTService.appendQuotedPath(DataPath(keys: keys.map(ChildKey.init)), into: &bytes)
        let expected = "{" + JSONText.quoted(keys.joined(separator: "/"))
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }
}
