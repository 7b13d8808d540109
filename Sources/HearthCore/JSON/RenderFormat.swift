/// How a tree is written out as JSON.
public enum RenderFormat: Hashable, Sendable {
    /// What REST `GET` answers: no priorities; objects whose keys are mostly sequential
    /// integers become arrays (Firebase's rule: all keys `0|[1-9]\d*` and max key < 2 × count).
    case plain
    /// `format=export`: priorities as `.priority` (leaves with one as `{".value", ".priority"}`),
    /// and never arrays.
    case export
}
