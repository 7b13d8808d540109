#if HEARTH_CONSOLE_WITHOUT_FILES
extension ConsoleAsset {
    /// The fuzz builds' console (Package.swift): no files, so `GET /` is left to the REST API.
    static let all: [String: ConsoleAsset] = [:]
}
#endif
