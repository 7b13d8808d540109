import HTTPTypes
import Hummingbird
import Testing

@testable import HearthServer

/// The routing table: each method and target to the way in it takes.
struct HearthRouteTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let method: HTTPRequest.Method
        let target: String
        let expected: HearthRoute
        var testDescription: String { "\(method) \(target)" }
    }

    static let cases: [Case] = [
        Case(method: .get, target: "/metrics", expected: .metrics(query: nil)),
        Case(method: .head, target: "/metrics?auth=x", expected: .metrics(query: "auth=x")),
        Case(method: .post, target: "/metrics", expected: .database),
        Case(method: .get, target: "/.backup?auth=x", expected: .backup(query: "auth=x")),
        Case(method: .options, target: "/.backup", expected: .database),
        Case(
            method: .post,
            target: "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
            expected: .accounts(.signUp)
        ),
        Case(method: .post, target: "/securetoken.googleapis.com/v1/token", expected: .accounts(.token)),
        Case(method: .options, target: "/identitytoolkit.googleapis.com/v1/accounts:signUp", expected: .database),
        Case(
            method: .post,
            target: "/functions/createChat",
            expected: .callable(CallableRoute(target: "/functions/createChat")!)
        ),
        Case(
            method: .post,
            target: "/my-app/us-central1/createChat",
            expected: .callable(CallableRoute(target: "/x/y/createChat")!)
        ),
        Case(method: .get, target: "/users/ada.json", expected: .database),
        Case(method: .get, target: "/a/b/c.json", expected: .database),
        Case(method: .get, target: "/", expected: .database),
        Case(method: .get, target: "/.well-known/hearth/health", expected: .database),
    ]

    @Test(arguments: cases) func route(_ test: Case) {
        let request = Request(
            head: HTTPRequest(method: test.method, scheme: "http", authority: "127.0.0.1", path: test.target),
            body: RequestBody(buffer: ByteBuffer())
        )
        let target = PercentDecoding.splitTarget(test.target)
        #expect(HearthRoute(request, target: target) == test.expected)
    }

    @Test func onlyTheScrapeIsNotRateLimited() {
        #expect(!HearthRoute.metrics(query: nil).countsAgainstRate)
        #expect(HearthRoute.database.countsAgainstRate)
        #expect(HearthRoute.backup(query: nil).countsAgainstRate)
    }
}
