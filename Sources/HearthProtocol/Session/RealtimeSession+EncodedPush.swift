extension RealtimeSession {
    /// A data push rendered once by the fan-out engine, for the listen `key`: sends the shared
    /// bytes (with `"t":tag` added when the listen is tagged), split into frames only when the
    /// message is longer than the frame limit. Returns no actions when the connection no longer
    /// holds the listen (it was unlistened, replaced by nothing, revoked, or the session closed).
    public mutating func push(encoded update: EncodedUpdate, for key: ListenKey) -> [SessionAction] {
        guard phase == .open, let record = listens[key] else { return [] }
        let bytes = update.message(tag: record.tag)
        return FrameSplitter.split(bytes, maxFrameLength: configuration.maxFrameLength).map { .send($0) }
    }
}
