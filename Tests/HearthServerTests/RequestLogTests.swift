import HTTPTypes
import Hummingbird
import NIOCore
import Testing

@testable import HearthServer

/// Every endpoint logs a request with the one `RequestLog` line: method, path without the
/// query, status, duration and the endpoint's own details (REST: the redacted query).
struct RequestLogTests {
    @Test func oneLineWithTheEndpointsDetailsAndNoSecret() throws {
        let logs = LogCapture()
        let request = Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "h", path: "/a/b.json?auth=SECRET&ns=x"),
            body: RequestBody(buffer: ByteBuffer())
        )
        let response = Response(status: .notFound)
        RequestLog.write(request, response, since: .now, logger: logs.logger) { target in
            ["hearth.query": "\(target.query ?? "")", "hb.response.status": "replaced"]
        }
        RequestLog.write(request, response, since: .now, logger: logs.logger)
        let lines = logs.records()
        #expect(lines.count == 2 && lines.allSatisfy { $0.message == "request" })
        #expect(lines[0].metadata["hb.request.method"] == "GET")
        #expect(lines[0].metadata["hb.request.path"] == "/a/b.json")
        #expect(lines[0].metadata["hearth.query"] == "auth=SECRET&ns=x")
        #expect(lines[0].metadata["hb.response.status"] == "replaced")
        #expect(lines[1].metadata["hb.response.status"] == "404")
        #expect(lines[1].metadata["hearth.duration_ms"] != nil)
        #expect(!lines[1].metadata.values.contains { $0.contains("SECRET") })
    }
}
