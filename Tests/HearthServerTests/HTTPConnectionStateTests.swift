import NIOCore
import NIOHTTP1
import Testing

@testable import HearthServer

#if canImport(Glibc)
import Glibc
#endif

/// The decisions of `HTTPConnectionGuard`, event by event, on a made-up clock.
struct HTTPConnectionStateTests {
    static let limits = HTTPConnectionState.Limits(
        headerTimeout: .seconds(30),
        idleTimeout: .seconds(75),
        lingerTimeout: .seconds(2),
        maxRequestLineBytes: 100,
        maxHeaderBytes: 1000
    )
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    static func at(_ seconds: Int64) -> NIODeadline { start + .seconds(seconds) }

    @Test func aKeepAliveRequestMovesTheDeadlines() {
        var state = HTTPConnectionState(limits: Self.limits, now: Self.start)
        #expect(state.deadline == Self.at(30))
        #expect(state.received(byteCount: 20, lineEnd: 18, now: Self.at(1)) == .forward)
        #expect(state.deadline == Self.at(31), "the first byte of a request starts its header timeout")
        #expect(state.headReceived(now: Self.at(2)) == .forward)
        #expect(state.deadline == Self.at(77), "a body may pause up to the idle timeout")
        #expect(state.requestEnded(now: Self.at(3)) == .forward)
        #expect(state.deadline == nil, "no deadline while the server answers")
        #expect(state.responseHeadWritten(status: .ok) == .none)
        #expect(state.responseEnded(now: Self.at(4)) == .none)
        #expect(state.deadline == Self.at(79), "idle keep-alive")
        #expect(state.deadlinePassed(now: Self.at(78)) == .none)
        #expect(state.deadlinePassed(now: Self.at(79)) == .close(abortingBody: false))
    }

    @Test func aSlowHeadGets408AndASilentConnectionIsClosed() {
        var slow = HTTPConnectionState(limits: Self.limits, now: Self.start)
        _ = slow.received(byteCount: 5, lineEnd: nil, now: Self.at(0))
        #expect(slow.deadlinePassed(now: Self.at(30)) == .refuse(.headerTimeout(.seconds(30))))
        var silent = HTTPConnectionState(limits: Self.limits, now: Self.start)
        #expect(silent.deadlinePassed(now: Self.at(30)) == .close(abortingBody: false))
        var paused = HTTPConnectionState(limits: Self.limits, now: Self.start)
        _ = paused.headReceived(now: Self.at(0))
        #expect(paused.deadlinePassed(now: Self.at(75)) == .close(abortingBody: true))
    }

    @Test func aLongRequestLineGets414() {
        var state = HTTPConnectionState(limits: Self.limits, now: Self.start)
        #expect(state.received(byteCount: 60, lineEnd: nil, now: Self.at(0)) == .forward)
        #expect(state.received(byteCount: 60, lineEnd: nil, now: Self.at(0)) == .refuse(.targetTooLong(100)))
        #expect(state.closing)
        #expect(state.received(byteCount: 60, lineEnd: nil, now: Self.at(0)) == .drop)
    }

    @Test func parseErrorsAreAnsweredBetweenRequestsAndReachTheBodyInside() {
        var idle = HTTPConnectionState(limits: Self.limits, now: Self.start)
        #expect(idle.parseFailed(.invalidMethod) == .refuse(.malformed(.invalidMethod, maxHeaderBytes: 1000)))
        #expect(idle.parseFailed(.invalidMethod) == .drop)
        var large = HTTPConnectionState(limits: Self.limits, now: Self.start)
        guard case .refuse(let refusal) = large.parseFailed(.headerOverflow) else {
            Issue.record("no refusal")
            return
        }
        #expect(refusal.status == .requestHeaderFieldsTooLarge)

        var inBody = HTTPConnectionState(limits: Self.limits, now: Self.start)
        _ = inBody.headReceived(now: Self.at(0))
        #expect(inBody.parseFailed(.invalidChunkSize) == .forward)
        #expect(inBody.responseHeadWritten(status: .badRequest) == .markClose)
        #expect(inBody.responseEnded(now: Self.at(1)) == .closeAfterWrite(linger: true))
    }

    @Test func anAnswerBeforeTheBodyEndedClosesTheConnection() {
        var state = HTTPConnectionState(limits: Self.limits, now: Self.start)
        _ = state.headReceived(now: Self.at(0))
        _ = state.bodyReceived(now: Self.at(0))
        #expect(state.responseHeadWritten(status: .continue) == .none)
        #expect(state.responseHeadWritten(status: .unauthorized) == .markClose)
        #expect(state.responseEnded(now: Self.at(1)) == .closeAfterWrite(linger: true))
        #expect(state.bodyReceived(now: Self.at(1)) == .drop)
    }

    /// Regression: a `Connection: close` request or response used to leave the connection
    /// half-closed (output only) until the client closed or the idle timeout passed.
    @Test func aRequestOrResponseThatClosesClosesFullyAfterItsResponse() {
        var request = HTTPConnectionState(limits: Self.limits, now: Self.start)
        _ = request.headReceived(keepAlive: false, now: Self.at(0))
        _ = request.requestEnded(now: Self.at(0))
        #expect(request.responseHeadWritten(status: .ok) == .markClose)
        #expect(request.responseEnded(now: Self.at(1)) == .closeAfterWrite(linger: false))
        #expect(request.deadline == nil)

        var response = HTTPConnectionState(limits: Self.limits, now: Self.start)
        _ = response.headReceived(now: Self.at(0))
        _ = response.requestEnded(now: Self.at(0))
        #expect(response.responseHeadWritten(status: .temporaryRedirect, closes: true) == .markClose)
        #expect(response.responseEnded(now: Self.at(1)) == .closeAfterWrite(linger: false))

        // Pipelined: a keep-alive request, then one that closes; the first answer keeps it open.
        var pipelined = HTTPConnectionState(limits: Self.limits, now: Self.start)
        _ = pipelined.headReceived(now: Self.at(0))
        _ = pipelined.requestEnded(now: Self.at(0))
        _ = pipelined.headReceived(keepAlive: false, now: Self.at(0))
        _ = pipelined.requestEnded(now: Self.at(0))
        #expect(pipelined.responseHeadWritten(status: .ok) == .none)
        #expect(pipelined.responseEnded(now: Self.at(1)) == .none)
        #expect(pipelined.responseHeadWritten(status: .ok) == .markClose)
        #expect(pipelined.responseEnded(now: Self.at(1)) == .closeAfterWrite(linger: false))
    }

    @Test func aBodySlowerThanTheMinimumRateIsClosedThoughItNeverPauses() {
        var limits = Self.limits
        limits.minBodyBytesPerSecond = 100
        var state = HTTPConnectionState(limits: limits, now: Self.start)
        _ = state.headReceived(now: Self.at(0))
        #expect(state.deadline == Self.at(30), "the grace is the header timeout")
        _ = state.bodyReceived(byteCount: 1000, now: Self.at(1))
        #expect(state.deadline == Self.at(40), "1000 bytes at 100 bytes/s earn 10 s")
        for second in 2...39 {
            #expect(state.bodyReceived(byteCount: 1, now: Self.at(Int64(second))) == .forward)
        }
        #expect(state.deadline == Self.at(40), "a byte a second earns nothing")
        #expect(state.deadlinePassed(now: Self.at(40)) == .close(abortingBody: true))

        var fast = HTTPConnectionState(limits: limits, now: Self.start)
        _ = fast.headReceived(now: Self.at(0))
        _ = fast.bodyReceived(byteCount: 1_000_000, now: Self.at(1))
        #expect(fast.deadline == Self.at(76), "a fast body is only bound by the idle timeout")
    }

    @Test func shutdownClosesIdleConnectionsAndBusyOnesAfterTheirResponse() {
        var idle = HTTPConnectionState(limits: Self.limits, now: Self.start)
        #expect(idle.quiesce() == .close(abortingBody: false))
        var busy = HTTPConnectionState(limits: Self.limits, now: Self.start)
        _ = busy.headReceived(now: Self.at(0))
        _ = busy.requestEnded(now: Self.at(0))
        #expect(busy.quiesce() == .none)
        #expect(busy.responseHeadWritten(status: .ok) == .markClose)
        #expect(busy.responseEnded(now: Self.at(1)) == .closeAfterWrite(linger: false))
    }

    @Test func theOpenFileLimitIsRaisedToTheHardLimit() throws {
        guard let (soft, hard) = OpenFileLimit.current(), hard > 64, soft > 64 else { return }
        var lowered = rlimit(rlim_cur: rlim_t(hard - 1), rlim_max: rlim_t(hard))
        guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &lowered) == 0 else { return }
        let raised = OpenFileLimit.raiseToHard()
        #expect(raised?.before == hard - 1)
        #expect(raised?.after == hard)
        #expect(OpenFileLimit.current()?.soft == hard)
    }
}
