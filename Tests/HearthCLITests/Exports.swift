// The shared test support (TestFailure, TemporaryDirectory, eventually, raw sockets…) is
// visible in every file of this target.
@_exported import HearthTestSupport
