public import HearthCore
import HearthStore

extension NamespaceEngine {
    /// Writes through the namespace's serial writer as REST does: `write.ifMatch` is an ETag as
    /// REST reads them (the store's, `null_etag` for null); returns once the write is committed
    /// and announced to the fan-out, with the ETag at `etagLocation` read after it when given.
    /// - Throws: `StoreError` `.permissionDenied` when the rules refuse `caller` the write
    ///   (checked on the writer, against the state the write applies to); `CoreError` or
    ///   `StoreError` `.invalidWrite` for a write the store refuses.
    public func write(
        _ write: Write,
        as caller: Caller,
        returningETagAt etagLocation: DataPath?
    ) async throws -> WriteOutcome {
        var write = write
        write.author = caller.writeAuthor
        let started = ContinuousClock.now
        switch try await store.write(write, authorize: writeAuthorizer(for: caller)) {
        case .conditionFailed(let current, let etag):
            return .conditionFailed(current: current, etag: etag)
        case .committed(_, let values):
            activity.acknowledged(.now - started)
            guard let etagLocation else { return .committed(values: values, etag: nil) }
            let etag = try await store.read { $0.etag(at: etagLocation) }
            return .committed(values: values, etag: etag)
        }
    }

    /// Whether the rules deny `caller` a set at `path` whatever it writes, so that a transport
    /// can refuse it before reading the data (`NamespaceRules.forecastWrite`). When the `.write`
    /// rules read the current data, they are judged with a read of it only if
    /// `readingCurrentData` (worth it for a large body), else the write is not denied here.
    /// Not for updates: their written paths come with their data.
    public func deniesEveryWrite(at path: DataPath, as caller: Caller, readingCurrentData: Bool) async throws -> Bool {
        switch rules.forecastWrite(caller, at: path) {
        case .denied:
            return true
        case .undecided:
            return false
        case .needsCurrentData:
            guard readingCurrentData else { return false }
            let rules = self.rules
            return try await store.read { rules.forecastWrite(caller, at: path, reader: $0) } == .denied
        }
    }

    /// `deniesEveryWrite(at:as:readingCurrentData:)` without the read: true only when the rules
    /// deny the set without looking at the current data.
    public func deniesEveryWrite(at path: DataPath, as caller: Caller) -> Bool {
        if case .denied = rules.forecastWrite(caller, at: path) { return true }
        return false
    }
}
