// The shared test support (TestServer, RealtimeTestClient, SSETestStream, RawHTTP, eventually…)
// is visible in every file of this target, as it was when it lived here.
@_exported import HearthTestSupport
