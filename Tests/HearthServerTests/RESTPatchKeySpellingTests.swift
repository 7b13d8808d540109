import Testing

/// PATCH keys that spell the same path differently count as one location (the first one's
/// place in the answer, the last one's value); keys that differ only by Unicode normalisation
/// are different keys, as in Firebase.
struct RESTPatchKeySpellingTests {
    static let scenarios: [RESTScenario] = [
        .init(
            "patch keys spelling one path",
            setup: [("/a", #"{"x":{"y":1,"z":2}}"#)],
            "PATCH",
            "/a.json",
            body: #"{"x/y":10,"w":1,"/x/y/":20,"x//y":30}"#,
            status: 200,
            expected: #"{"x/y":30,"w":1}"#,
            after: [("/a", #"{"x":{"y":30,"z":2},"w":1}"#)]
        ),
        .init(
            "patch keys spelled alike twice",
            setup: [("/a", #"{"x":{"y":1,"z":2}}"#)],
            "PATCH",
            "/a.json",
            body: #"{"x/y":10,"w":1,"x/y":20}"#,
            status: 200,
            expected: #"{"x/y":20,"w":1}"#,
            after: [("/a", #"{"x":{"y":20,"z":2},"w":1}"#)]
        ),
        .init(
            "patch keys differing only by normalisation",
            "PATCH",
            "/a.json",
            body: "{\"\u{E9}\":1,\"e\u{301}\":2}",
            status: 200,
            expected: "{\"\u{E9}\":1,\"e\u{301}\":2}",
            after: [("/a", "{\"e\u{301}\":2,\"\u{E9}\":1}")]
        ),
        .init(
            "patch answer escapes keys",
            "PATCH",
            "/a.json",
            body: #"{"q\"k":1,"b\\s":2}"#,
            status: 200,
            expected: #"{"q\"k":1,"b\\s":2}"#
        ),
    ]

    @Test(arguments: scenarios)
    func scenario(_ scenario: RESTScenario) async throws {
        try await TestServer.with { server in
            let problems = try await scenario.run(on: server)
            #expect(problems.isEmpty, "\(scenario.id): \(problems.joined(separator: "; "))")
        }
    }
}
