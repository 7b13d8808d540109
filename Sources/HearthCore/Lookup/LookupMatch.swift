/// One entry of a lookup index: a term and a location it finds.
public struct LookupMatch: Sendable, Hashable {
    public let term: String
    public let location: DataPath
    /// The entry's place in the index, to continue a scan after it (a lookup scan's `after`); opaque bytes.
    public let position: [UInt8]
    /// What the entry carries (`LookupIndex.payload`).
    public let payload: [UInt8]

    public init(term: String, location: DataPath, position: [UInt8], payload: [UInt8]) {
        self.term = term
        self.location = location
        self.position = position
        self.payload = payload
    }
}
