/// How writes reach the disk before they are acknowledged (`hearth serve --sync`).
public enum SyncMode: Sendable, Equatable {
    /// Acknowledge after the write reached the OS (survives `kill -9`); fsync in the
    /// background at least every `milliseconds` while there are unsynced writes.
    case periodic(milliseconds: Int)
    /// Acknowledge only after an fsync; concurrent writes share each fsync.
    case always
}
