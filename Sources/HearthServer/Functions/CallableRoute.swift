/// The callable a request target names: `/functions/<name>`, or the Firebase emulator's
/// `/<project>/<region>/<name>` that the SDKs call after `connectFunctionsEmulator`. A target
/// ending in `.json` or with a segment starting with `.` is the database's (REST, health,
/// rules), never a callable.
struct CallableRoute: Equatable, Sendable {
    let name: String

    init?(target: String) {
        let path =
            target.utf8.split(separator: UInt8(ascii: "?"), maxSplits: 1, omittingEmptySubsequences: false)
            .first.map { Substring($0) } ?? ""
        guard path.hasPrefix("/"), !path.hasSuffix(".json") else { return nil }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0.isEmpty || $0.hasPrefix(".") }) else { return nil }
        switch segments.count {
        case 2 where segments[0] == "functions":
            name = String(segments[1])
        case 3:
            name = String(segments[2])
        default:
            return nil
        }
    }
}
