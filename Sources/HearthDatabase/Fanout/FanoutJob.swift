import HearthCore
import HearthStore

/// One step of a namespace's delivery queue, handled strictly in order.
enum FanoutJob: Sendable {
    /// A committed write (from the store's commit feed).
    case commit(CommittedWrite, announcedAt: ContinuousClock.Instant)
    /// A new listener, before its initial read: from here on it collects what it must replay.
    case register(ListenRegistration, any ListenSubscriber)
    /// The listener's initial read is done at `sequence` (with the query window it shows):
    /// replay what it missed and make it active.
    case activate(id: UInt64, sequence: UInt64, window: QueryWindow?)
    /// The listener is gone.
    case unregister(id: UInt64)
    /// Called once every earlier job is done and its updates handed to their subscribers (at
    /// once when the queue is idle).
    case after(@Sendable () -> Void)
}
