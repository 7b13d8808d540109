import Foundation
import Testing

/// `orderBy` and its range and limit parameters.
struct RESTQueryTests {
    static let dinosaurs =
        #"{"a":{"height":5,"name":"x"},"b":{"height":1},"c":{"height":3},"d":{"height":"tall"},"e":{"weight":2}}"#
    static let rules =
        #"{"rules": {".read": false, ".write": false, "dinos": {".indexOn": ["height", ".value"]}, "scores": {".indexOn": ".value"}}}"#

    static let scenarios: [RESTScenario] = [
        .init(
            "orderBy key limitToFirst",
            setup: [("/dinos", dinosaurs)],
            "GET",
            "/dinos.json?orderBy=%22$key%22&limitToFirst=2",
            status: 200,
            expected: #"{"a":{"height":5,"name":"x"},"b":{"height":1}}"#
        ),
        .init(
            "orderBy key startAt endAt",
            setup: [("/dinos", dinosaurs)],
            "GET",
            "/dinos.json?orderBy=%22$key%22&startAt=%22b%22&endAt=%22c%22",
            status: 200,
            expected: #"{"b":{"height":1},"c":{"height":3}}"#
        ),
        .init(
            "orderBy key startAfter endBefore",
            setup: [("/dinos", dinosaurs)],
            "GET",
            "/dinos.json?orderBy=%22$key%22&startAfter=%22a%22&endBefore=%22d%22",
            status: 200,
            expected: #"{"b":{"height":1},"c":{"height":3}}"#
        ),
        .init(
            "orderBy child limitToLast",
            setup: [("/dinos", dinosaurs)],
            "GET",
            "/dinos.json?orderBy=%22height%22&limitToLast=2",
            status: 200,
            expected: #"{"a":{"height":5,"name":"x"},"d":{"height":"tall"}}"#
        ),
        .init(
            "orderBy child equalTo number",
            setup: [("/dinos", dinosaurs)],
            "GET",
            "/dinos.json?orderBy=%22height%22&equalTo=3",
            status: 200,
            expected: #"{"c":{"height":3}}"#
        ),
        .init(
            "orderBy child range",
            setup: [("/dinos", dinosaurs)],
            "GET",
            "/dinos.json?orderBy=%22height%22&startAt=2&endAt=5",
            status: 200,
            expected: #"{"a":{"height":5,"name":"x"},"c":{"height":3}}"#
        ),
        .init(
            "orderBy child equalTo null selects missing",
            setup: [("/dinos", dinosaurs)],
            "GET",
            "/dinos.json?orderBy=%22height%22&equalTo=null",
            status: 200,
            expected: #"{"e":{"weight":2}}"#
        ),
        .init(
            "orderBy value",
            setup: [("/scores", #"{"x":3,"y":1,"z":2}"#)],
            "GET",
            "/scores.json?orderBy=%22$value%22&limitToFirst=2",
            status: 200,
            expected: #"{"y":1,"z":2}"#
        ),
        .init(
            "orderBy priority",
            setup: [("/p", #"{"x":{".value":1,".priority":2},"y":{".value":2,".priority":1}}"#)],
            "GET",
            "/p.json?orderBy=%22$priority%22&limitToFirst=1",
            status: 200,
            expected: #"{"y":2}"#
        ),
        .init(
            "orderBy string equalTo",
            setup: [("/dinos", dinosaurs)],
            "GET",
            "/dinos.json?orderBy=%22height%22&equalTo=%22tall%22",
            status: 200,
            expected: #"{"d":{"height":"tall"}}"#
        ),
        .init(
            "empty result",
            setup: [("/dinos", dinosaurs)],
            "GET",
            "/dinos.json?orderBy=%22height%22&equalTo=99",
            status: 200,
            expected: "{}"
        ),
        .init(
            "unindexed child",
            setup: [("/other", #"{"a":{"h":1}}"#)],
            "GET",
            "/other.json?orderBy=%22h%22",
            status: 400,
            error: #"Index not defined, add ".indexOn": "h", for path "/other", to the rules"#
        ),
        .init(
            "orderBy missing",
            "GET",
            "/dinos.json?limitToFirst=1",
            status: 400,
            error: "orderBy must be defined when other query parameters are defined"
        ),
        .init(
            "orderBy not JSON",
            "GET",
            "/dinos.json?orderBy=height",
            status: 400,
            error: "orderBy must be a valid JSON encoded path"
        ),
        .init(
            "orderBy number",
            "GET",
            "/dinos.json?orderBy=5",
            status: 400,
            error: "orderBy must be a valid JSON encoded path"
        ),
        .init(
            "orderBy invalid path",
            "GET",
            "/dinos.json?orderBy=%22a.b%22",
            status: 400,
            error: "orderBy must be a valid JSON encoded path"
        ),
        .init(
            "both limits",
            "GET",
            "/dinos.json?orderBy=%22$key%22&limitToFirst=1&limitToLast=1",
            status: 400,
            error: "limitToFirst and limitToLast cannot both be set"
        ),
        .init(
            "negative limit",
            "GET",
            "/dinos.json?orderBy=%22$key%22&limitToFirst=-1",
            status: 400,
            error: "Invalid limitToFirst '-1': use a non-negative integer."
        ),
        .init(
            "key bound not string",
            "GET",
            "/dinos.json?orderBy=%22$key%22&startAt=1",
            status: 400,
            error: "Provided key index type is invalid, must be string"
        ),
        .init(
            "bound not JSON",
            "GET",
            "/dinos.json?orderBy=%22height%22&startAt=abc",
            status: 400,
            contains: "startAt"
        ),
        .init(
            "equalTo with startAt",
            "GET",
            "/dinos.json?orderBy=%22height%22&equalTo=1&startAt=1",
            status: 400,
            error: "equalTo cannot be combined with startAt"
        ),
        .init(
            "shallow with orderBy child",
            "GET",
            "/dinos.json?shallow=true&orderBy=%22height%22",
            status: 400,
            error: "Mixing 'shallow' and querying parameters is not supported"
        ),
        .init(
            "shallow with endAt",
            "GET",
            "/dinos.json?shallow=true&orderBy=%22$key%22&endAt=%22b%22",
            status: 400,
            error: "Mixing 'shallow' and querying parameters is not supported"
        ),
    ]

    @Test(arguments: scenarios)
    func scenario(_ scenario: RESTScenario) async throws {
        try await TestServer.with(rules: Self.rules) { server in
            let problems = try await scenario.run(on: server)
            #expect(problems.isEmpty, "\(scenario.id): \(problems.joined(separator: "; "))")
        }
    }
}
