import NIOCore

/// An object only `eventLoop` may touch, kept by something other threads also hold (a
/// `Sendable` connection handler that the engine's delivery queue and database tasks reach):
/// the confinement is a type instead of a comment, and every access checks the thread.
///
/// The check is `EventLoop.assertInEventLoop`: a precondition in debug builds (every test run),
/// compiled out of release builds, so a hot path pays nothing for it. NIO's `NIOLoopBound` and
/// `NIOLoopBoundBox` check with `preconditionInEventLoop`, which release builds keep: a call
/// through the `any EventLoop` existential and a thread-local read on every access. Use those
/// where an access is not per frame or per delivery.
struct LoopConfined<Value: AnyObject>: @unchecked Sendable {
    private let unchecked: Value

    /// Made on `eventLoop` (checked as every access is). The loop is not kept: the owner has it
    /// already, and a connection's idle memory counts every word.
    init(_ value: Value, eventLoop: any EventLoop) {
        eventLoop.assertInEventLoop()
        self.unchecked = value
    }

    /// The object, on `eventLoop` (the one it was made on) only.
    func value(on eventLoop: any EventLoop) -> Value {
        eventLoop.assertInEventLoop()
        return unchecked
    }
}
